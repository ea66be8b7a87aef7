"""How a tool in the agent's worker thread gets code run on the kernel's main thread.

User code must run where a cell would: matplotlib, signal handlers and the kernel's Interrupt all assume
the main thread. The agent loop runs in a worker, so tools like RunCode hand a function to the
`main_thread` service and wait for its value.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from typing import TypeVar

from ...base.errors import ToolError
from ...base.stopping import within
from ...tools.context import MainThread as MainThread
from ...tools.context import ToolContext

T = TypeVar("T")


class InlineMainThread:
    """Runs `fn` in a helper thread of the calling loop: for tests and terminal use, where no UI thread pumps.

    Code run this way is not on the real main thread, so signal-based features (Interrupt, matplotlib GUI
    backends) do not apply; everything else behaves the same.
    """

    async def call(self, fn: Callable[[], T], *, timeout: float | None) -> T:
        # A plain executor future, not asyncio.to_thread's task: a KeyboardInterrupt from `fn` must reach the
        # caller as an exception to handle, and asyncio re-raises one that escapes a task out of the loop.
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(None, contextvars.copy_context().run, fn)
        return await within(future, timeout)


def main_thread_of(ctx: ToolContext, tool: str) -> MainThread:
    """The `main_thread` service, or NOT_AVAILABLE naming the tool that needed it."""
    main = ctx.services.main_thread
    if main is None:
        raise ToolError(
            "NOT_AVAILABLE",
            f"{tool} needs the kernel's main thread to run code on, and this session does not provide one "
            "(it is not running inside a Jupyter kernel); use the other tools instead",
        )
    return main
