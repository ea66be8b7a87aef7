"""Outside calls take their turn on the kernel's main thread, between the user's cells, never during one.

ipykernel runs every shell message on its main thread's event loop, under the main shell's asyncio lock (first
come, first served): a cell holds it from its start to its end, an async cell's awaits included. An outside call
is a coroutine put on that loop that takes the same lock, so it waits for the running cell, the cells queued
before it run first, and calls that come while it runs wait behind it, in order. Inside its turn the call
blocks the loop as a `%%agent` cell does, so the shell pump (`ui/pump.py`) keeps widget clicks flowing and
holds back cells the user starts meanwhile.

An Interrupt in the turn raises KeyboardInterrupt there, as in a cell: the idle kernel ignores SIGINT, so the
turn installs Python's default handler for its duration and puts the kernel's back after.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


class TurnInterrupted(Exception):
    """The user interrupted the kernel while an outside call had its turn."""


class KernelTurns:
    """Runs functions on the kernel's main thread in kernel order (from any other thread's event loop)."""

    def __init__(self, kernel: Any) -> None:
        self.kernel = kernel
        self.loop: asyncio.AbstractEventLoop = kernel.io_loop.asyncio_loop

    async def take(self, fn: Callable[[], T]) -> T:
        """Await, from another thread's loop, `fn()` run on the kernel's main thread in its turn."""
        future = asyncio.run_coroutine_threadsafe(self._in_turn(fn), self.loop)
        return await asyncio.wrap_future(future)

    async def _in_turn(self, fn: Callable[[], T]) -> T:
        lock: asyncio.Lock | None = getattr(self.kernel, "_main_asyncio_lock", None)
        if lock is None:
            return _interruptible(fn)
        async with lock:
            return _interruptible(fn)


def _interruptible(fn: Callable[[], T]) -> T:
    """`fn()` with Interrupt raising KeyboardInterrupt in it (the idle kernel's own handler restored after)."""
    if threading.current_thread() is not threading.main_thread():
        return fn()
    saved = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return fn()
    except KeyboardInterrupt:  # out of an asyncio task it would stop the kernel's own loop
        raise TurnInterrupted("interrupted by the user (Interrupt in the notebook)") from None
    finally:
        signal.signal(signal.SIGINT, saved)
