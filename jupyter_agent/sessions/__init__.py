"""Sessions as data: every conversation saved as it goes, as append-only JSON lines, readable without a kernel.

`SessionLog` appends records atomically; `load_session` replays a file into a `SavedSession` (a pure
function of the file); `list_sessions` / `find_session` look a project's sessions up; `session_markdown`
exports one. `SessionRecorder` is what a live agent session writes through.
"""

from .export import session_markdown
from .log import SessionLog
from .recorder import SessionRecorder
from .store import (
    SavedSession,
    SessionNotFound,
    SessionSummary,
    find_session,
    list_sessions,
    load_session,
    project_dir,
    sessions_root,
)

__all__ = [
    "SavedSession",
    "SessionLog",
    "SessionNotFound",
    "SessionRecorder",
    "SessionSummary",
    "find_session",
    "list_sessions",
    "load_session",
    "project_dir",
    "session_markdown",
    "sessions_root",
]
