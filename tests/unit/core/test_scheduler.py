"""Read-only calls of one turn run together; the others one at a time, in order; results in the model's order."""

from __future__ import annotations

import asyncio
import contextlib

from jupyter_agent.tools.core import ToolCall
from jupyter_agent.tools.scheduler import plan_batches, run_scheduled

READS = {"Read", "Grep", "Glob"}


def calls(*names: str) -> list[ToolCall]:
    return [ToolCall(id=f"c{i}", name=n, input={}) for i, n in enumerate(names)]


def is_read_only(name: str) -> bool:
    return name in READS


def test_consecutive_reads_form_one_batch_and_writes_are_barriers() -> None:
    batches = plan_batches(calls("Read", "Grep", "Edit", "Read", "Glob", "Write", "Write"), is_read_only)
    assert batches == [[0, 1], [2], [3, 4], [5], [6]]


def test_a_write_between_reads_is_not_reordered() -> None:
    log: list[str] = []

    async def run(call: ToolCall) -> str:
        log.append(f"start {call.id}")
        await asyncio.sleep(0.01 if call.name == "Edit" else 0.02)
        log.append(f"end {call.id}")
        return call.id

    results = asyncio.run(run_scheduled(calls("Read", "Read", "Edit", "Read"), run, is_read_only))
    assert results == ["c0", "c1", "c2", "c3"]
    edit_start, edit_end = log.index("start c2"), log.index("end c2")
    assert log.index("end c0") < edit_start and log.index("end c1") < edit_start
    assert edit_end < log.index("start c3")


def test_reads_overlap_and_results_keep_the_model_order() -> None:
    running = 0
    peak = 0

    async def run(call: ToolCall) -> str:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.05 if call.id == "c0" else 0.01)  # the first finishes last
        running -= 1
        return call.id

    results = asyncio.run(run_scheduled(calls(*["Read"] * 8), run, is_read_only))
    assert results == [f"c{i}" for i in range(8)]
    assert peak == 8


def test_writes_never_overlap() -> None:
    running = 0
    peak = 0

    async def run(call: ToolCall) -> str:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.005)
        running -= 1
        return call.id

    asyncio.run(run_scheduled(calls("Edit", "Write", "Edit"), run, is_read_only))
    assert peak == 1


def test_finished_calls_are_known_when_the_batch_is_cancelled() -> None:
    done: dict[int, str] = {}

    async def run(call: ToolCall) -> str:
        if call.name == "Edit":
            await asyncio.sleep(10)
        return call.id

    async def main() -> None:
        task = asyncio.ensure_future(run_scheduled(calls("Read", "Edit", "Read"), run, is_read_only, done))
        await asyncio.sleep(0.05)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert done == {0: "c0"}
