"""Where sessions live and how their files are written and read back.

One file per session, `<jupyter data dir>/jupyter_agent/sessions/<project key>/<session id>.jsonl`, where
the project is the notebook's path (or the working directory when the notebook is unknown). Each line is
one JSON record; a write appends whole lines and fsyncs, so a kernel killed mid-write leaves at worst a
torn last line, which reading skips, and a write that fails part-way (a full disk) is cut back to where it
started, so the file never holds half a line in the middle. Records:

- `session`: the header (id, created, project, notebook, resumed_from, base_messages). A resumed session's file
  continues the one it resumed: it holds only what is new, and reading it reads that one's first
  `base_messages` messages (and its prefix, requests and runs) first;
- `prefix`: the conversation's system prompt and tools, as sent in every request (a new conversation, or a
  redeclared tool list);
- `told`: what the conversation told the model since its prefix (facts, tools, the thinking-binding choice);
- `told_changes`: what changed in that since the last `told` or `told_changes` record (`told_changes.py`);
- `request`: what the user asked, with its run id;
- `messages`: the conversation as sent to the API, from index `start` on (replayed over the earlier ones,
  so shortening an old result or a compaction is a record too, never an edit of the file);
- `run`: how a run ended, its usage and cost;
- `compaction`: the conversation is about to be replaced by a summary (the next `messages` record);
- `rewind`: `%agent rewind` took run `to_run` and later ones out of the conversation (the next `messages`
  record cuts it at the request's `message_start`, which each `request` record carries).

Every string passes through `mask_secret_values` before it is written.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import secrets
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..base.confined import open_confined
from ..base.json_values import is_array, is_object
from ..masking import clip
from .log import Record
from .told_changes import told_after

FORMAT_VERSION = 1
_SUFFIX = ".jsonl"


def sessions_root() -> Path:
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "jupyter_agent" / "sessions"


def project_key(project: Path) -> str:
    """A directory name for a project: readable (its file name) and unique (a hash of its absolute path)."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", project.name or "root")[:40]
    digest = hashlib.sha256(str(project).encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{name}-{digest}"


def project_dir(project: Path, root: Path | None = None) -> Path:
    return (root or sessions_root()) / project_key(project)


def new_session_id() -> str:
    """Sortable by time, unique across kernels started in the same second."""
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


def now_iso() -> str:
    """Local time with its offset, to the microsecond (sessions started in the same second still sort)."""
    return datetime.now().astimezone().isoformat(timespec="microseconds")


def read_records(path: Path) -> tuple[list[Record], list[str]]:
    """(the records, each line skipped because it is no record, named with its number and why: `line 3 (not valid
    JSON: …)`). A session file is input like any other: no line of it (torn, foreign, nested 200,000 deep) stops
    the rest from being read."""
    records: list[Record] = []
    skipped: list[str] = []
    with os.fdopen(open_confined(path, (path.parent,)), "rb") as f:
        for number, raw in enumerate(f, start=1):
            if not raw.strip():
                continue
            try:
                value = json.loads(raw)
            except Exception as exc:  # any failure of one line is that line's, never the file's
                skipped.append(f"line {number} ({_why_unreadable(exc)})")
                continue
            if is_object(value) and isinstance(value.get("type"), str):
                records.append(value)
            else:
                skipped.append(f"line {number} (not a session record)")
    return records, skipped


def _why_unreadable(exc: Exception) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deeply to read"
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8 text"
    if isinstance(exc, json.JSONDecodeError):
        return f"not valid JSON: {exc.msg} at column {exc.colno}"
    return f"{type(exc).__name__}: {clip(str(exc), 200)}"


@dataclass(frozen=True, kw_only=True)
class Request:
    run_id: int
    text: str
    time: str = ""
    #: Where the request went in the conversation (messages, blocks of the last one); None when not known
    #: or no longer valid (an older file, a compaction since).
    message_start: tuple[int, int] | None = None
    #: `%agent rewind` took it out of the conversation.
    rewound: bool = False


@dataclass(frozen=True, kw_only=True)
class RunRecord:
    run_id: int
    model: str
    reason: str
    turns: int
    cost_usd: float
    usage: Mapping[str, int]


@dataclass(kw_only=True)
class SavedSession:
    """A session as its file says, replayed: the conversation to resume, the requests, the runs' costs."""

    id: str
    path: Path
    created: str = ""
    project: str = ""
    notebook: str | None = None
    resumed_from: str | None = None
    requests: list[Request] = field(default_factory=list[Request])
    messages: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    runs: list[RunRecord] = field(default_factory=list[RunRecord])
    #: The conversation as it was before each compaction replaced it (oldest first), for the export.
    compacted: list[list[dict[str, Any]]] = field(default_factory=list[list[dict[str, Any]]])
    #: The lines skipped because they are no record, each named (`line 3 (not valid JSON: …)`).
    skipped: list[str] = field(default_factory=list[str])
    #: What the file lost (a record that was never written, a conversation cut at a broken message), said
    #: in a line each; the conversation above is the part that is whole.
    gaps: list[str] = field(default_factory=list[str])
    #: The conversation's system prompt and tools (`{"system", "tools"}`), and what it told since (None: an
    #: older file that did not keep them).
    prefix: dict[str, Any] | None = None
    told: dict[str, Any] | None = None

    @property
    def damage(self) -> str:
        """What resuming this session leaves out, in one sentence (empty when the file is whole)."""
        notes = list(self.gaps)
        if self.skipped:
            lines = ", ".join(self.skipped[:5]) + (
                f" and {len(self.skipped) - 5} more" if len(self.skipped) > 5 else ""
            )
            notes.append(
                f"{_count_lines(len(self.skipped))} of the file could not be read and skipped: {lines}"
            )
        return "; ".join(notes)

    @property
    def skipped_lines(self) -> int:
        return len(self.skipped)

    @property
    def cost_usd(self) -> float:
        return sum(r.cost_usd for r in self.runs)

    @property
    def first_request(self) -> str:
        return self.requests[0].text if self.requests else ""

    @property
    def last_run_id(self) -> int:
        return max([r.run_id for r in self.requests] + [r.run_id for r in self.runs], default=0)


def _count_lines(count: int) -> str:
    return "1 line" if count == 1 else f"{count} lines"


#: How many resumed sessions deep a file may continue others (a cycle or a runaway chain stops there).
_MAX_CHAIN = 100


def load_session(path: Path, *, _seen: frozenset[str] = frozenset()) -> SavedSession:
    """Replay a session file (pure: reads the file, needs no kernel), after the session it continues, if any.
    Torn or foreign lines are skipped."""
    records, skipped = read_records(path)
    saved = SavedSession(id=path.stem, path=path, skipped=skipped)
    messages: list[dict[str, Any]] = []
    for record in records:
        kind = record["type"]
        if kind == "session":
            saved.id = str(record.get("id") or saved.id)
            saved.created = str(record.get("created") or "")
            saved.project = str(record.get("project") or "")
            saved.notebook = record.get("notebook")
            saved.resumed_from = record.get("resumed_from")
            messages = _continued(saved, path, record, _seen | {path.stem})
        elif kind == "prefix":
            saved.prefix = {"system": record.get("system"), "tools": record.get("tools")}
        elif kind in ("told", "told_changes"):
            saved.told = told_after(saved.told, record)
        elif kind == "request":
            saved.requests.append(
                Request(
                    run_id=int(record.get("run_id", 0)),
                    text=str(record.get("text", "")),
                    time=str(record.get("time", "")),
                    message_start=_position(record.get("message_start")),
                )
            )
        elif kind == "rewind":
            to_run = int(record.get("to_run", 0))
            saved.requests = [
                dataclasses.replace(r, rewound=True) if r.run_id >= to_run else r for r in saved.requests
            ]
        elif kind == "messages":
            start = max(int(record.get("start", 0)), 0)
            if start > len(messages):  # the record before this one was never written: do not bridge the gap
                saved.gaps.append(
                    f"messages {len(messages) + 1}–{start} were never saved (a write failed), so the "
                    f"conversation resumes from before them"
                )
                continue
            messages = [*messages[:start], *_valid_messages(record.get("messages"))]
        elif kind == "run":
            saved.runs.append(
                RunRecord(
                    run_id=int(record.get("run_id", 0)),
                    model=str(record.get("model", "")),
                    reason=str(record.get("reason", "")),
                    turns=int(record.get("turns", 0)),
                    cost_usd=float(record.get("cost_usd", 0.0)),
                    usage={k: int(v) for k, v in dict(record.get("usage") or {}).items()},
                )
            )
        elif kind == "compaction":
            saved.compacted.append(messages)
            saved.requests = [dataclasses.replace(r, message_start=None) for r in saved.requests]
    whole = consistent_prefix(messages)
    if len(whole) < len(messages):
        saved.gaps.append(
            f"message {len(whole) + 1} does not follow from the one before it, so the conversation resumes "
            f"from before it ({len(messages) - len(whole)} message(s) left out)"
        )
    saved.messages = whole
    return saved


def _continued(saved: SavedSession, path: Path, header: Record, seen: frozenset[str]) -> list[dict[str, Any]]:
    """For a file that continues another session: that session's first `base_messages` messages, with its
    prefix, what it told, its requests and runs taken over into `saved`; else no messages."""
    base_id, count = header.get("resumed_from"), header.get("base_messages")
    if not isinstance(base_id, str) or type(count) is not int or count <= 0:
        return []
    base_path = path.with_name(f"{base_id}{_SUFFIX}")
    if base_id in seen or len(seen) > _MAX_CHAIN or not base_path.is_file():
        saved.gaps.append(
            f"it continues session {base_id}, whose file is missing, so its first {count} messages are left out"
        )
        return []
    base = load_session(base_path, _seen=seen)
    saved.prefix, saved.told = base.prefix, base.told
    saved.requests = list(base.requests)
    saved.runs = list(base.runs)
    saved.compacted = list(base.compacted)
    saved.gaps.extend(base.gaps)
    if len(base.messages) < count:
        saved.gaps.append(
            f"the session it continues ({base_id}) holds {len(base.messages)} of its {count} messages"
        )
    return base.messages[:count]


def _position(value: Any) -> tuple[int, int] | None:
    """A request's `message_start` as written (`[messages, blocks]`); None when absent or malformed."""
    if is_array(value) and len(value) == 2 and all(type(v) is int and v >= 0 for v in value):
        return int(value[0]), int(value[1])
    return None


def consistent_prefix(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The longest start of `messages` the API would accept as a conversation: it starts with the user, the
    roles alternate, and every tool_result answers a tool_use of the message before (a tool_use left
    unanswered at the end is for `Conversation.repair`)."""
    kept: list[dict[str, Any]] = []
    asked: set[str] = set()
    last = "assistant"  # the role before the first message, as far as alternation goes
    for message in messages:
        role = message["role"]
        if role == "system":  # follows a user message; alternation goes on around it
            if last != "user":
                break
            kept.append(message)
            continue
        if role == last:
            break
        last = role
        blocks = [b for b in (message["content"] if is_array(message["content"]) else []) if is_object(b)]
        if role == "user":
            answered = [b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"]
            leading = all(b.get("type") == "tool_result" for b in blocks[: len(answered)])
            if not leading or not set(answered) <= asked:
                break
        asked = {str(b.get("id")) for b in blocks if b.get("type") == "tool_use"}
        kept.append(message)
    return kept


def _valid_messages(value: Any) -> Iterator[dict[str, Any]]:
    if not is_array(value):
        return
    for item in value:
        if is_object(item) and item.get("role") in ("user", "assistant", "system") and "content" in item:
            yield {"role": item["role"], "content": item["content"]}


@dataclass(frozen=True, kw_only=True)
class SessionSummary:
    """One line of `%agent sessions`."""

    id: str
    created: str
    first_request: str
    cost_usd: float
    runs: int
    path: Path


class SessionNotFound(LookupError):
    """No saved session matches; the message names what was looked for and how to list what exists."""


def _session_files(project: Path, root: Path | None) -> list[Path]:
    directory = project_dir(project, root)
    if not directory.is_dir():
        return []
    return sorted(directory.glob(f"*{_SUFFIX}"), reverse=True)


def list_sessions(project: Path, *, root: Path | None = None) -> list[SessionSummary]:
    """The project's sessions that have at least one request, newest first."""
    found: list[SessionSummary] = []
    for path in _session_files(project, root):
        saved = load_session(path)
        if not saved.requests:
            continue
        found.append(
            SessionSummary(
                id=saved.id,
                created=saved.created,
                first_request=saved.first_request,
                cost_usd=saved.cost_usd,
                runs=len(saved.runs),
                path=path,
            )
        )
    found.sort(key=lambda s: (s.created, s.id), reverse=True)
    return found


def find_session(
    project: Path, ident: str | None = None, *, root: Path | None = None, exclude: str | None = None
) -> SavedSession:
    """The latest session of `project` (other than `exclude`), or the one whose id starts with `ident`."""
    sessions = [s for s in list_sessions(project, root=root) if s.id != exclude]
    if ident:
        sessions = [s for s in sessions if s.id.startswith(ident)]
        if len(sessions) > 1:
            ids = ", ".join(s.id for s in sessions[:5])
            raise SessionNotFound(
                f"SESSION_AMBIGUOUS: {ident!r} matches {len(sessions)} sessions ({ids}); give more of the id"
            )
    if not sessions:
        what = f"no saved session {ident!r}" if ident else "no saved session"
        raise SessionNotFound(
            f"SESSION_NOT_FOUND: {what} for '{project}'; `%agent sessions` lists the saved ones"
        )
    return load_session(sessions[0].path)
