"""Worker → UI thread: events to render, approvals to ask, code to run on the main thread.

The agent loop (worker thread) never touches widgets or displays; it posts here and, for approvals and
main-thread calls, awaits a concurrent future the UI thread resolves.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import queue
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

if TYPE_CHECKING:
    from ..agent.events import AgentEvent
    from ..tools.dispatch import Approval, ApprovalRequest

T = TypeVar("T")


@dataclass(frozen=True)
class AskApproval:
    request: ApprovalRequest
    reply: concurrent.futures.Future[Approval]


@dataclass(frozen=True)
class CallOnMain:
    fn: Callable[[], Any]
    reply: concurrent.futures.Future[Any]
    timeout: float | None


Posted: TypeAlias = "AgentEvent | AskApproval | CallOnMain"


class UIChannel:
    def __init__(self) -> None:
        self.queue: queue.SimpleQueue[Posted] = queue.SimpleQueue()

    def emit(self, event: AgentEvent) -> None:
        self.queue.put(event)

    async def ask(self, request: ApprovalRequest) -> Approval:
        """The Dispatcher's approver: the UI thread shows the question and resolves the future."""
        reply: concurrent.futures.Future[Approval] = concurrent.futures.Future()
        self.queue.put(AskApproval(request, reply))
        try:
            return await asyncio.wrap_future(reply)
        finally:
            reply.cancel()  # interrupted while asking: lets the UI collapse the question

    async def call(self, fn: Callable[[], T], *, timeout: float | None = None) -> T:
        """The `main_thread` service: run `fn` on the kernel's main thread (user code, matplotlib, signals)."""
        reply: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self.queue.put(CallOnMain(fn, reply, timeout))
        waiting = asyncio.wrap_future(reply)
        return await (asyncio.wait_for(waiting, timeout) if timeout is not None else waiting)

    def drain(self) -> list[Posted]:
        items: list[Posted] = []
        while True:
            try:
                items.append(self.queue.get_nowait())
            except queue.Empty:
                return items
