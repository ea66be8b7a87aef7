"""The UI thread's wait: render events and keep widget clicks flowing until the agent's run is done.

Interrupt (SIGINT → KeyboardInterrupt here) and the Stop button both stop the agent cleanly: the worker
cancels its task, the loop repairs the conversation, and we wait for its summary before returning.
"""

from __future__ import annotations

import concurrent.futures
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..agent.events import AgentEvent
from .channel import Ask, CallOnMain, UIChannel
from .pump import ShellPump

#: How often the wait wakes to render worker events; clicks wake it at once through the socket.
TICK = 0.03
#: After an interrupt, how long to wait for the agent to wind down before giving up on it.
STOP_GRACE = 15.0


class Presenter(Protocol):
    """What the wait shows: the run's events, the worker's questions, and a tick between them."""

    def on_event(self, event: AgentEvent) -> None: ...
    def on_question(self, ask: Ask[Any]) -> None: ...
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
    interrupted: bool = False
    _stop_deadline: float | None = field(default=None, repr=False)

    def wait(self, done: concurrent.futures.Future[Any]) -> Any:
        """Block until `done` resolves, serving the channel; re-raise KeyboardInterrupt after a clean stop."""
        try:
            while True:
                try:
                    self._serve()
                    if done.done():
                        self._serve()
                        break
                    if self._stop_deadline is not None and time.monotonic() > self._stop_deadline:
                        break
                    self._sleep(done)
                except KeyboardInterrupt:
                    if self.interrupted:  # a second interrupt: stop waiting for a clean stop
                        break
                    self.interrupted = True
                    self._stop_deadline = time.monotonic() + STOP_GRACE
                    self.worker.stop_current()
        finally:
            if self.pump is not None:
                self.pump.finish()
        return done.result() if done.done() else None

    def _sleep(self, done: concurrent.futures.Future[Any]) -> None:
        if self.pump is not None:
            self.pump.pump(TICK)
        else:
            concurrent.futures.wait([done], timeout=TICK)

    def _serve(self) -> None:
        for item in self.channel.drain():
            if isinstance(item, Ask):
                self.presenter.on_question(item)
            elif isinstance(item, CallOnMain):
                _call_on_main(item)
            else:
                self.presenter.on_event(item)
        self.presenter.on_tick()


def _call_on_main(item: CallOnMain) -> None:
    if not item.reply.set_running_or_notify_cancel():
        return
    try:
        item.reply.set_result(item.fn())
    except KeyboardInterrupt as exc:  # the user's Interrupt during their code also stops the agent
        item.reply.set_exception(exc)
        raise
    except BaseException as exc:  # user code may raise anything; it goes back to the tool
        item.reply.set_exception(exc)
