"""Interrupt during a `%%agent` cell: raised where the wait handles it, noted everywhere after.

The wait (`MainLoop`) turns KeyboardInterrupt into a clean stop of the run. Once the run is over, the cell still
hides its Stop button, keeps what the run changed and draws the review; an Interrupt landing there would escape
from whatever line it hit (inside ipywidgets, zmq, a diff of a large file), and IPython would show that raw
traceback, or fail to format it ("Unexpected exception formatting exception"). So from the moment the wait ends
the Interrupt is only noted, and the cell ends with one KeyboardInterrupt of its own, the same way every time.
"""

from __future__ import annotations

import signal
import sys
import threading
from types import FrameType, TracebackType
from typing import Any


class InterruptLatch:
    """SIGINT raises KeyboardInterrupt until `hold()`, then is only noted (`noted`); the handler that was
    installed comes back on exit. Outside the main thread (no signal handler can be set there) it does nothing."""

    def __init__(self) -> None:
        self.raising = True
        self.noted = False
        self._previous: Any = None
        self._installed = False
        self._leave_noting = False

    def __enter__(self) -> InterruptLatch:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._on_sigint)
            self._installed = True
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._on_sigint if self._leave_noting else self._previous)
            self._installed = False

    def hold(self) -> None:
        """From now on an Interrupt is noted, not raised (called by the wait as its last step)."""
        self.raising = False

    def note_until_replaced(self) -> None:
        """On exit, leave the noting handler in place of the one that raises, for the kernel to replace: for a
        cell that is the run and nothing else, in a kernel that puts its idle handler back once its reply is sent
        (ipykernel's `post_handler_hook`). An Interrupt between the run's end and that reply has nothing left to
        stop; raised there, it escaped ipykernel's handler, which then sent no reply (the cell never ended)."""
        self.raising = False
        self._leave_noting = True

    def _on_sigint(self, signum: int, frame: FrameType | None) -> None:
        if self.raising:
            raise KeyboardInterrupt
        self.noted = True


def finish_cell(latch: InterruptLatch, *, kernel: Any, code: str) -> None:
    """Between the run's end and the cell's: from here an Interrupt is only noted; what the cell published is sent
    (ipykernel flushes these streams again before its reply, waiting on its IO thread, and finds nothing left);
    and when the cell is only this run, the latch's noting handler outlives it until the kernel has replied."""
    latch.hold()
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    if only_the_run(code) and callable(getattr(kernel, "post_handler_hook", None)):
        latch.note_until_replaced()


def only_the_run(code: str) -> bool:
    """The cell is one `%%agent` cell or one `%agent …` line: none of the user's code runs after the run in it."""
    code = code.strip()
    return code.startswith("%%agent") or (code.startswith("%agent") and "\n" not in code)


#: What a cell the user interrupted ends with, in place of a KeyboardInterrupt traceback (the run's own output
#: above it says what ran: `view.stopped_line`).
INTERRUPTED_LINE = "⏹ Interrupted: the run above stopped cleanly; cells queued after this one do not run."


def interrupted_cell() -> KeyboardInterrupt:
    """The KeyboardInterrupt an interrupted `%%agent` cell ends with — so the kernel replies "interrupted" and a
    Run All stops there — shown as one line, not a traceback: IPython shows what `_render_traceback_` returns."""
    stop = KeyboardInterrupt()
    setattr(stop, "_render_traceback_", lambda: [INTERRUPTED_LINE])  # noqa: B010 (IPython's hook, not a field)
    return stop
