"""SessionEnd: told to a session's hooks when it ends — `%agent reset` (`clear`), the extension unloaded or the
kernel shut down (`other`). Its hooks run and cannot stop it; a hook that fails never keeps the kernel from going."""

from __future__ import annotations

import atexit
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..agent.session import AgentSession
    from ..agent.worker import AgentWorker

#: How long the end waits for its hooks (Claude Code's default hook timeout, and a little more).
END_WAIT = 90.0


def end_session(session: AgentSession | None, worker: AgentWorker | None, reason: str) -> None:
    """Fire SessionEnd for a session whose start its hooks were told; the next run starts a new one."""
    if session is None or worker is None or session.start_source is not None:
        return
    from ..agent.hook_moments import session_end

    session.start_source = "startup"
    try:
        worker.submit(session_end(session.hooks, reason)).result(timeout=END_WAIT)
    except Exception as exc:
        print(f"jupyter_agent: the SessionEnd hooks failed: {type(exc).__name__}: {exc}")


def end_at_exit(close: Callable[[], None]) -> Callable[[], None]:
    """At the kernel's shutdown (the interpreter's exit), `close` (the kernel agent's: SessionEnd with `other`,
    held weakly); the returned function, which `atexit` holds, is unregistered at unload (which closes itself)."""
    held = weakref.WeakMethod(close)

    def at_exit() -> None:
        found = held()
        if found is not None:
            found()

    atexit.register(at_exit)
    return at_exit
