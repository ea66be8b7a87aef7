"""Warm the imports of the first run in the background, so the first `%%agent` reaches the API sooner.

`%load_ext jupyter_agent` stays cheap (nothing heavy is imported on the main thread); it starts one daemon
thread that imports the SDK, pydantic and the agent's own modules. Importing is all it does: no client,
no comm, nothing that touches the kernel. If the user's first `%%agent` comes while the thread is still
importing, the run waits for it (`finish_preload`) before importing anything itself: two threads importing
the same package graph in different orders can hand one of them a partially initialised module (Python breaks
the would-be deadlock that way), which failed a first run now and then. The thread imports what the first run
needs, so the wait is time the main thread would have spent importing (and a run could not get past a hanging
SDK import either). Subcommands that need none of it (`%agent help`) never wait. Any failure (a missing or broken SDK)
is kept in `preload_error` and otherwise ignored: the first run imports again and reports the error where the
user sees it.

No cell runs while the thread imports (`hold_cells_until_preloaded`): importing builds pydantic models whose field
docs pydantic reads with `ast.parse`, and on Python 3.11 two threads making AST objects at once can corrupt
each other's (CPython's AST recursion counter is shared by the interpreter's threads): the user's cell then failed
with "SystemError: AST constructor recursion depth mismatch", or its traceback was printed as "Unexpected
exception formatting exception" with no error output. IPython parses a cell, compiles it, formats its traceback
and the kernel journal reads it, all with AST objects on the main thread.

The hold is bounded: cells wait at most `WAIT_LIMIT_S` seconds from `%load_ext` in all (30 s: the warm-up took
5-7 s on a 2-core machine at a load of 6-7, so in normal operation no cell runs beside it). A warm-up still
importing then (a hanging import) no longer holds anything: the cell runs and says once, in one line, which
import is still running and what that means.
"""

from __future__ import annotations

import importlib
import sys
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

#: What the first run imports, heaviest first.
MODULES = (
    "anthropic",
    "anthropic.resources.messages",
    "pydantic",
    "jupyter_agent.agent.session",
    "jupyter_agent.agent.client",
    "jupyter_agent.host.build",
    "jupyter_agent.builtin_tools.files",
    "jupyter_agent.builtin_tools.notebook",
    "jupyter_agent.builtin_tools.kernel",
    "jupyter_agent.builtin_tools.catalog",
    "jupyter_agent.ui.view",
    "jupyter_agent.ui.presenter",
)
#: The HTTP stack's parts the SDK's first connection loads; absent in some installs, so failures are ignored.
OPTIONAL = ("anyio._backends._asyncio", "h11")

#: How long, from `%load_ext`, cells and the first run wait for the warm-up at most (see the module docstring).
WAIT_LIMIT_S = 30.0

_started: threading.Thread | None = None
_deadline = 0.0
#: The module the warm-up is importing now (named when a cell stops waiting for it).
_importing = ""
_told = False
preload_error: Exception | None = None


def _import_all() -> None:
    global preload_error, _importing
    for name in MODULES:
        _importing = name
        try:
            importlib.import_module(name)
        except Exception as exc:  # a broken SDK: the first run reports it, the warm-up stays quiet
            preload_error = exc
            return
    for name in OPTIONAL:
        _importing = name
        try:
            importlib.import_module(name)
        except Exception:  # an optional warm-up only
            continue


def start_preload() -> threading.Thread | None:
    """Start the warm-up once per process; returns its thread (None if it could not be started)."""
    global _started, _deadline
    if _started is not None:
        return _started
    try:
        thread = threading.Thread(target=_import_all, name="jupyter-agent-preload", daemon=True)
        thread.start()
    except RuntimeError:  # no more threads can be started; the first run imports as before
        return None
    _started = thread
    _deadline = time.monotonic() + WAIT_LIMIT_S
    return thread


def hold_cells_until_preloaded(shell: InteractiveShell) -> None:
    """Each cell waits, before IPython parses it, until the warm-up has ended or `WAIT_LIMIT_S` from `%load_ext`
    has passed (at once after either); see the module docstring."""

    def before_the_cell() -> None:
        global _deadline
        try:
            finish_preload()
        except (
            KeyboardInterrupt
        ):  # IPython would print it as a callback's error, run the cell, and hold the next
            _deadline = 0.0
            _tell("the wait was interrupted")
        shell.events.unregister("pre_execute", before_the_cell)  # IPython triggers a copy of the list

    shell.events.register("pre_execute", before_the_cell)


def finish_preload() -> bool:
    """Wait for the warm-up to end, until `WAIT_LIMIT_S` from its start at most; whether it has ended (True when
    it never started). The first wait that gives up says so, once, on stderr."""
    thread = _started
    if thread is None or thread is threading.current_thread():
        return True
    thread.join(max(0.0, _deadline - time.monotonic()))
    if not thread.is_alive():
        return True
    _tell(f"it has run {WAIT_LIMIT_S:g} s")
    return False


def _tell(why: str) -> None:
    """Say once why cells stopped waiting for the warm-up, and what that means."""
    global _told
    if _told:
        return
    _told = True
    print(
        f"jupyter_agent: the warm-up %load_ext started is still importing {_importing!r} and {why}, so cells no "
        "longer wait for it; the first %%agent may be slow or wait on that import (Interrupt stops it; an "
        "import that hangs usually means a broken install)",
        file=sys.stderr,
        flush=True,
    )
