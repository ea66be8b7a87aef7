"""The UI thread's wait: render events and keep widget clicks flowing until the agent's run is done.

Interrupt (SIGINT → KeyboardInterrupt here) and the Stop button both stop the agent cleanly: the worker
sets the run's stop signal and cancels its task, the loop repairs the conversation, and we wait for its
summary before returning. The cell never returns while its run is still going (its output would land in
the next cell, and the next `%%agent` would find a run in progress): a further Interrupt repeats the stop,
and a run that takes long to stop says what it is waiting for.
"""

from __future__ import annotations

import concurrent.futures
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..agent.events import AgentEvent, Notice
from .channel import CallOnMain, PendingQuestion, UIChannel
from .interrupts import InterruptLatch
from .pump import ShellPump

log = logging.getLogger(__name__)

#: How often the wait wakes to render worker events; clicks wake it at once through the socket.
TICK = 0.03
#: After an interrupt, how long before the cell says the run is still stopping (and what to do if it never does).
STOP_NOTICE_AFTER = 5.0


class Presenter(Protocol):
    """What the wait shows: the run's events, the worker's questions, and a tick between them."""

    def on_event(self, event: AgentEvent) -> None: ...
    def on_question(self, ask: PendingQuestion[Any]) -> None: ...
    def on_tick(self) -> None: ...


class Stoppable(Protocol):
    def stop_current(self) -> None: ...


@dataclass
class MainLoop:
    """The main thread's loop while the worker runs: drain the channel, pump the shell socket, honour Interrupt.

    Main-thread calls (`CallOnMain`) are run here; everything else goes to the presenter. One instance
    serves one wait; `interrupted` tells the caller whether the user stopped the run.
    """

    channel: UIChannel
    presenter: Presenter
    worker: Stoppable
    pump: ShellPump | None = None
    #: Where a cell's later Interrupts are noted once this wait is over (None: they raise, as usual).
    latch: InterruptLatch | None = None
    interrupted: bool = False
    _notice_at: float | None = field(default=None, repr=False)

    def wait(self, done: concurrent.futures.Future[Any]) -> Any:
        """Block until `done` resolves, serving the channel; the caller re-raises KeyboardInterrupt after a
        clean stop (`interrupted`)."""
        try:
            while True:
                try:
                    self._serve()
                    if done.done():
                        self._serve()
                        if self.latch is not None:
                            self.latch.hold()  # an Interrupt after this line is noted, never raised
                        break
                    self._still_stopping()
                    self._sleep(done)
                except KeyboardInterrupt:
                    self._interrupt()
        finally:
            if self.pump is not None:
                self.pump.finish()
        if done.cancelled():
            return None
        return done.result()

    def _interrupt(self) -> None:
        if not self.interrupted:
            self.interrupted = True
            self._notice_at = time.monotonic() + STOP_NOTICE_AFTER
        self.worker.stop_current()  # again on a further Interrupt: it costs nothing

    def _call_on_main(self, item: CallOnMain) -> None:
        """Run a worker's function here. The user's Interrupt during it (their code) stops the run — and the
        stop is requested before the reply wakes the worker, which would otherwise go on to its next step
        before the stop arrived."""
        if not item.reply.set_running_or_notify_cancel():
            return
        try:
            item.reply.set_result(item.fn())
        except KeyboardInterrupt as exc:
            self._interrupt()
            item.reply.set_exception(exc)
        except BaseException as exc:  # user code may raise anything; it goes back to the tool
            item.reply.set_exception(exc)

    def _still_stopping(self) -> None:
        if self._notice_at is None or time.monotonic() < self._notice_at:
            return
        self._notice_at = None
        self.presenter.on_event(
            Notice(
                level="warning",
                message=f"still stopping after {STOP_NOTICE_AFTER:g} s: a tool has not returned yet; the cell ends "
                "when the run does (if it never does, restart the kernel)",
            )
        )

    def _sleep(self, done: concurrent.futures.Future[Any]) -> None:
        if self.pump is not None:
            self.pump.pump(TICK)
        else:
            concurrent.futures.wait([done], timeout=TICK)

    def _serve(self) -> None:
        """Handle what the worker posted, one item at a time: an Interrupt raised while one is handled leaves
        the others in the queue for the next round (none is dropped)."""
        while (item := self.channel.take()) is not None:
            if isinstance(item, CallOnMain):
                self._call_on_main(item)
            else:
                self._show(item)
        self._show(None)

    def _show(self, item: AgentEvent | PendingQuestion[Any] | None) -> None:
        """Hand `item` to the presenter (None: a tick). A display that fails — an Interrupt may land in the
        middle of one — is logged: it must not end the wait while the run goes on."""
        try:
            if item is None:
                self.presenter.on_tick()
            elif isinstance(item, PendingQuestion):
                self.presenter.on_question(item)
            else:
                self.presenter.on_event(item)
        except Exception as exc:
            log.exception("showing %s failed", type(item).__name__)
            if (
                isinstance(item, PendingQuestion) and not item.reply.done()
            ):  # the worker must not wait for ever
                item.reply.set_exception(RuntimeError(f"the question could not be shown: {exc}"))
