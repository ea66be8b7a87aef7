"""One background thread with its own asyncio loop, where the agent runs while the main thread pumps the UI.

Started on first use and reused across runs, so the SDK's HTTP connections stay warm. `stop_current()`
is what Interrupt and the Stop button call, from any thread: it sets the running task's `StopSignal` (at
once, from the calling thread) and cancels the task, and the loop turns that into a clean
`RunFinished(reason="interrupted")` — the submitted future then resolves with that result rather than
being cancelled. The signal is what makes the stop certain: a cancellation can be lost, the signal cannot
(base/stopping.py).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from ..base.stopping import StopSignal, run_context

T = TypeVar("T")


class AgentWorker:
    """The agent's thread: an asyncio loop of its own, where runs are submitted from the main thread."""

    def __init__(self, *, name: str = "jupyter-agent") -> None:
        self._name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._tasks: set[asyncio.Task[Any]] = set()
        #: The stop signal of each submitted coroutine, from submission until it ends (set from any thread).
        self._signals: dict[concurrent.futures.Future[Any], StopSignal] = {}
        self._signals_lock = threading.Lock()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def busy(self) -> bool:
        """True while a submitted coroutine has not finished."""
        return bool(self._tasks)

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is not None and self.running:
                return self._loop
            loop = asyncio.new_event_loop()
            ready = threading.Event()

            def main() -> None:
                asyncio.set_event_loop(loop)
                loop.call_soon(ready.set)
                loop.run_forever()

            thread = threading.Thread(target=main, name=self._name, daemon=True)
            thread.start()
            ready.wait()
            self._loop, self._thread = loop, thread
            return loop

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Run `coro` on the worker loop; the future gets its result (stop it with `stop_current`)."""
        loop = self._ensure_loop()
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        signal = StopSignal()
        with self._signals_lock:
            self._signals[future] = signal

        def start() -> None:
            if not future.set_running_or_notify_cancel():
                coro.close()
                self._forget(future)
                return
            task = loop.create_task(coro, context=run_context(signal))
            self._tasks.add(task)

            def settle(done: asyncio.Task[T]) -> None:
                self._tasks.discard(done)
                self._forget(future)
                if done.cancelled():  # the coroutine let the cancellation through
                    future.set_exception(concurrent.futures.CancelledError())
                elif (error := done.exception()) is not None:
                    future.set_exception(error)
                else:
                    future.set_result(done.result())

            task.add_done_callback(settle)

        loop.call_soon_threadsafe(start)
        return future

    def _forget(self, future: concurrent.futures.Future[Any]) -> None:
        with self._signals_lock:
            self._signals.pop(future, None)

    def stop_current(self) -> None:
        """Stop whatever is running on the worker (thread-safe; a no-op when idle).

        The runs' stop signals are set at once, from this thread; then their tasks are cancelled. A stop
        requested right after `submit` still reaches that run, inside it: the cancellation is queued behind
        the task's first step, so the coroutine has started and can turn it into a clean ending (a task
        cancelled before its first step would never run its handler), and its first check sees the signal.
        """
        with self._signals_lock:
            signals = list(self._signals.values())
        for signal in signals:
            signal.request()
        loop = self._loop
        if loop is None or loop.is_closed():
            return

        def cancel_all() -> None:
            for task in list(self._tasks):
                loop.call_soon(task.cancel)

        loop.call_soon_threadsafe(cancel_all)

    def call_soon(self, fn: Callable[[], Any]) -> None:
        """Run `fn` on the worker loop's thread (e.g. to resolve an asyncio future it waits on)."""
        self._ensure_loop().call_soon_threadsafe(fn)

    def shutdown(self, timeout: float = 5.0) -> None:
        """Cancel running work, stop the loop and join the thread (the worker can be started again)."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop, self._thread = None, None
        if loop is None or thread is None:
            return

        def stop() -> None:
            for task in list(self._tasks):
                task.cancel()
            loop.call_soon(loop.stop)

        loop.call_soon_threadsafe(stop)
        thread.join(timeout)
        if not thread.is_alive():
            loop.close()
