"""Scheduler: 8 read-only calls of one turn that each sleep 200 ms, through the real Dispatcher, vs one call.

Read-only calls run concurrently, so the batch should take well under 2× one call. A second figure runs the
same 8 calls as edits (one at a time, in order) to show what the scheduling saves. Prints ratios only.

    .venv/bin/python benchmarks/scheduler_bench.py
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_agent.tools import Dispatcher, PermissionPolicy, Sandbox, ToolCall, ToolContext, ToolPool, tool
from jupyter_agent.tools.scheduler import run_scheduled

SLEEP = 0.2


@tool(read_only=True)
async def slow_read(i: int) -> str:
    """Sleep, then answer (stands for a slow read-only lookup)."""
    await asyncio.sleep(SLEEP)
    return str(i)


@tool(kind="edit")
async def slow_write(i: int) -> str:
    """Sleep, then answer (stands for a slow edit)."""
    await asyncio.sleep(SLEEP)
    return str(i)


async def timed(dispatcher: Dispatcher, ctx: ToolContext, name: str, n: int) -> float:
    calls = [ToolCall(id=f"c{i}", name=name, input={"i": i}) for i in range(n)]
    start = time.perf_counter()
    results = await run_scheduled(calls, lambda c: dispatcher.dispatch(c, ctx), dispatcher.is_read_only)
    elapsed = time.perf_counter() - start
    assert [r.result.content for r in results] == [str(i) for i in range(n)]
    return elapsed


async def main() -> None:
    pool = ToolPool()
    pool.set_source("bench", [slow_read, slow_write])
    dispatcher = Dispatcher(pool=pool, policy=PermissionPolicy(mode="bypassPermissions"))
    with tempfile.TemporaryDirectory() as tmp:
        ctx = ToolContext(sandbox=Sandbox.at(tmp))
        one = min([await timed(dispatcher, ctx, "slow_read", 1) for _ in range(3)])
        eight_reads = min([await timed(dispatcher, ctx, "slow_read", 8) for _ in range(3)])
        eight_writes = await timed(dispatcher, ctx, "slow_write", 8)
    print(f"one read-only call:        {one * 1000:7.1f} ms")
    print(
        f"8 read-only calls:         {eight_reads * 1000:7.1f} ms  ratio to one call {eight_reads / one:.2f} (target < 2)"
    )
    print(
        f"8 edits (one at a time):   {eight_writes * 1000:7.1f} ms  ratio to one call {eight_writes / one:.2f}"
    )


if __name__ == "__main__":
    asyncio.run(main())
