"""Read-only calls of one turn run together; the others one at a time, in order; results in the model's order."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from typing import TypeVar

from jupyter_agent.tools.core import ToolCall
from jupyter_agent.tools.scheduler import plan_batches, run_scheduled

READS = {"Read", "Grep", "Glob"}
T = TypeVar("T")


def calls(*names: str) -> list[ToolCall]:
    return [ToolCall(id=f"c{i}", name=n, input={}) for i, n in enumerate(names)]


def is_read_only(name: str) -> bool:
    return name in READS


def test_consecutive_reads_form_one_batch_and_writes_are_barriers() -> None:
    batches = plan_batches(calls("Read", "Grep", "Edit", "Read", "Glob", "Write", "Write"), is_read_only)
    assert batches == [[0, 1], [2], [3, 4], [5], [6]]


async def within(awaitable: Awaitable[T], what: str) -> T:
    """A scheduler that serialises what should overlap would wait forever: fail instead."""
    try:
        return await asyncio.wait_for(awaitable, timeout=10)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what}") from None


def test_a_write_between_reads_is_not_reordered() -> None:
    log: list[str] = []
    reads_running = 0

    async def run(call: ToolCall) -> str:
        nonlocal reads_running
        log.append(f"start {call.id}")
        if call.name == "Read":
            reads_running += 1
            for _ in range(5):  # give the scheduler every chance to start the Edit early
                await asyncio.sleep(0)
            reads_running -= 1
        else:
            assert reads_running == 0, "the Edit started while reads were running"
            await asyncio.sleep(0)
        log.append(f"end {call.id}")
        return call.id

    results = asyncio.run(run_scheduled(calls("Read", "Read", "Edit", "Read"), run, is_read_only))
    assert results == ["c0", "c1", "c2", "c3"]
    edit_start, edit_end = log.index("start c2"), log.index("end c2")
    assert log.index("end c0") < edit_start and log.index("end c1") < edit_start
    assert edit_end < log.index("start c3")


def test_reads_overlap_and_results_keep_the_model_order() -> None:
    async def main() -> list[str]:
        started: set[str] = set()
        all_started = asyncio.Event()
        others_done = asyncio.Event()
        finished: list[str] = []

        async def run(call: ToolCall) -> str:
            started.add(call.id)
            if len(started) == 8:
                all_started.set()
            await within(all_started.wait(), "all eight reads to run at once")
            if call.id == "c0":  # the first finishes last
                await within(others_done.wait(), "the other reads")
            finished.append(call.id)
            if len(finished) == 7:
                others_done.set()
            return call.id

        results = await run_scheduled(calls(*["Read"] * 8), run, is_read_only)
        assert finished[-1] == "c0"
        return results

    assert asyncio.run(main()) == [f"c{i}" for i in range(8)]


def test_writes_never_overlap() -> None:
    running = 0
    peak = 0

    async def run(call: ToolCall) -> str:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        for _ in range(5):
            await asyncio.sleep(0)
        running -= 1
        return call.id

    asyncio.run(run_scheduled(calls("Edit", "Write", "Edit"), run, is_read_only))
    assert peak == 1


def test_finished_calls_are_known_when_the_batch_is_cancelled() -> None:
    done: dict[int, str] = {}

    async def main() -> None:
        edit_started = asyncio.Event()
        never = asyncio.Event()

        async def run(call: ToolCall) -> str:
            if call.name == "Edit":
                edit_started.set()
                await never.wait()
            return call.id

        task = asyncio.ensure_future(run_scheduled(calls("Read", "Edit", "Read"), run, is_read_only, done))
        await within(edit_started.wait(), "the Edit to start")
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert done == {0: "c0"}
