"""Worker → UI thread: events to render, questions to ask, code to run on the main thread.

The agent loop (worker thread) never touches widgets or displays; it posts here and, for questions and
main-thread calls, awaits a concurrent future the UI thread resolves.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import queue
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, TypeVar

from ..base.stopping import within

if TYPE_CHECKING:
    from ..agent.events import AgentEvent
    from ..tools.question import Question

T = TypeVar("T")
A = TypeVar("A")


@dataclass(frozen=True)
class PendingQuestion(Generic[A]):
    """A question waiting on the UI thread; resolving `reply` answers the worker (cancelled: it gave up)."""

    request: Question[A]
    reply: concurrent.futures.Future[A]

    def answer(self, answer: A) -> None:
        """Answer once; a question the worker already gave up on (interrupt) stays unanswered."""
        if self.reply.set_running_or_notify_cancel():
            self.reply.set_result(answer)


@dataclass(frozen=True)
class CallOnMain:
    fn: Callable[[], Any]
    reply: concurrent.futures.Future[Any]
    timeout: float | None


Posted: TypeAlias = "AgentEvent | PendingQuestion[Any] | CallOnMain"


class UIChannel:
    def __init__(self) -> None:
        self.queue: queue.SimpleQueue[Posted] = queue.SimpleQueue()

    def emit(self, event: AgentEvent) -> None:
        self.queue.put(event)

    async def ask(self, request: Question[A]) -> A:
        """Ask the person (the Dispatcher's approver, or any tool's question); the UI thread answers."""
        reply: concurrent.futures.Future[A] = concurrent.futures.Future()
        self.queue.put(PendingQuestion(request, reply))
        try:
            return await asyncio.wrap_future(reply)
        finally:
            reply.cancel()  # interrupted while asking: lets the UI collapse the question

    async def call(self, fn: Callable[[], T], *, timeout: float | None = None) -> T:
        """The `main_thread` service: run `fn` on the kernel's main thread (user code, matplotlib, signals)."""
        reply: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self.queue.put(CallOnMain(fn, reply, timeout))
        return await within(asyncio.wrap_future(reply), timeout)

    def take(self) -> Posted | None:
        """The oldest item posted, or None."""
        try:
            return self.queue.get_nowait()
        except queue.Empty:
            return None

    def drain(self) -> list[Posted]:
        items: list[Posted] = []
        while True:
            try:
                items.append(self.queue.get_nowait())
            except queue.Empty:
                return items
