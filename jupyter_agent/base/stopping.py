"""The run's stop signal: set once when the user stops the run, seen by the loop, the tools and their threads.

Cancelling the run's asyncio task is not enough on its own. A cancellation can be lost (Python 3.11's
`asyncio.wait_for` drops one that arrives together with the awaited result — exactly when Interrupt stops
the user's code and its result comes back at the same moment), and work a tool started in a thread goes on
after the task is cancelled (a Write's rename landed after the Interrupt). So the worker also sets a
`StopSignal` that everything can look at:

- the agent loop calls `check()` between every step (before a request, after a turn, before each tool
  call): a stop that was requested is a stop, whether or not its cancellation arrived;
- a thread about to make a change lasting beyond the run (a file's rename) does it inside `committing()`:
  either the change lands before the stop, or it does not land at all; `settle()` waits for one in
  progress, so the run's ending can say truthfully what landed.

The signal of the running task is a context variable, which `asyncio.to_thread` carries into threads;
code outside any run sees a signal that is never set.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Awaitable, Generator
from contextlib import contextmanager
from typing import TypeVar

from .errors import ToolError

T = TypeVar("T")


class Stopped(ToolError):
    """Raised in a thread that was about to commit a change after the user stopped the run."""

    def __init__(self) -> None:
        super().__init__(
            "INTERRUPTED", "the user stopped the run before this change was made; nothing was written"
        )


class StopSignal:
    """Set once by `request()` (from any thread); read with `requested`, `check()` and `committing()`."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._commit = threading.RLock()

    def request(self) -> None:
        self._event.set()

    @property
    def requested(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        """Raise CancelledError when a stop was requested (for the loop's steps, on the event loop)."""
        if self._event.is_set():
            raise asyncio.CancelledError("stopped by the user")

    def halt_if_requested(self) -> None:
        """Raise `Stopped` when a stop was requested (for work in a thread: a long diff checks as it goes)."""
        if self._event.is_set():
            raise Stopped()

    @contextmanager
    def committing(self) -> Generator[None]:
        """Hold this while making a lasting change; raises `Stopped` (changing nothing) when the run is stopped."""
        with self._commit:
            if self._event.is_set():
                raise Stopped()
            yield

    def settle(self) -> None:
        """Wait until a change being committed has landed (or was refused), so what landed can be known."""
        with self._commit:
            pass


_NEVER = StopSignal()
_CURRENT: contextvars.ContextVar[StopSignal] = contextvars.ContextVar("jupyter_agent_stop", default=_NEVER)


def current_stop() -> StopSignal:
    """The stop signal of the run this code belongs to (one that is never set outside a run)."""
    return _CURRENT.get()


def run_context(signal: StopSignal) -> contextvars.Context:
    """A copy of the current context in which `current_stop()` is `signal` (for the run's task)."""
    context = contextvars.copy_context()
    context.run(_CURRENT.set, signal)
    return context


async def within(awaitable: Awaitable[T], seconds: float | None) -> T:
    """`await awaitable`, raising TimeoutError after `seconds` (None: no limit).

    Instead of `asyncio.wait_for`, which in Python 3.11 returns the result and drops a cancellation that
    arrives at the moment the awaited thing completes; `asyncio.timeout` lets it through.
    """
    if seconds is None:
        return await awaitable
    async with asyncio.timeout(seconds):
        return await awaitable
