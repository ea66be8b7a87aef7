"""Calls of one model turn: read-only ones run together, the others one at a time, in the model's order."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from ..base.stopping import current_stop
from .core import ToolCall

R = TypeVar("R")


def plan_batches(calls: Sequence[ToolCall], is_read_only: Callable[[str], bool]) -> list[list[int]]:
    """Consecutive read-only calls form one concurrent batch; every other call is a batch of its own.

    A write is a barrier: reads before it finish first, reads after it start after it.
    """
    batches: list[list[int]] = []
    for index, call in enumerate(calls):
        if is_read_only(call.name) and batches and all(is_read_only(calls[i].name) for i in batches[-1]):
            batches[-1].append(index)
        else:
            batches.append([index])
    return batches


async def run_scheduled(
    calls: Sequence[ToolCall],
    run: Callable[[ToolCall], Awaitable[R]],
    is_read_only: Callable[[str], bool],
    results: dict[int, R] | None = None,
) -> list[R]:
    """Results in the model's order. `results` is filled as calls finish, so a caller that is cancelled
    half-way knows which calls completed. A stop requested between batches raises CancelledError."""
    done: dict[int, R] = results if results is not None else {}
    stop = current_stop()
    for batch in plan_batches(calls, is_read_only):
        stop.check()  # a stop between batches: the calls after it do not start

        async def one(i: int) -> None:
            done[i] = await run(calls[i])

        if len(batch) == 1:
            await one(batch[0])
        else:
            async with asyncio.TaskGroup() as group:
                for i in batch:
                    group.create_task(one(i))
    return [done[i] for i in range(len(calls))]
