"""Every stop reason the SDK can name has a row in the loop's table; anything else ends the run with an
error naming it, its tool calls not run, the conversation still valid."""

from __future__ import annotations

from typing import cast, get_args

import pytest
from agent_testkit import HarnessFactory, assert_valid_request, result_text, tool_results
from anthropic.types import StopReason

from jupyter_agent.agent import ErrorEvent, Notice
from jupyter_agent.agent.stops import STOP_REASONS, after_stop
from jupyter_agent.testing import Text, ToolUse, Turn
from jupyter_agent.tools import tool

ran: list[int] = []


@tool(read_only=True)
def add(a: int, b: int) -> int:
    """Add two integers."""
    ran.append(a + b)
    return a + b


def test_every_stop_reason_of_the_sdk_has_a_row_and_no_row_is_for_anything_else() -> None:
    assert sorted(STOP_REASONS) == sorted(get_args(StopReason))
    for reason in get_args(StopReason):
        assert after_stop(reason) is STOP_REASONS[reason]
        assert after_stop(reason).failure is None


@pytest.mark.parametrize("stop_reason", ["compaction", "stop", "", None])
def test_a_stop_reason_outside_the_table_is_a_failure_that_names_it(stop_reason: str | None) -> None:
    after = after_stop(stop_reason)
    assert (after.reason, after.runs_calls, after.continues) == ("error", False, False)
    assert after.failure is not None and after.failure.startswith(
        "UNKNOWN_STOP_REASON: the model's turn ended "
    )
    assert (repr(stop_reason) if stop_reason is not None else "without a stop reason") in after.failure


def test_an_unknown_stop_reason_ends_the_run_with_an_error_and_does_not_run_the_calls(
    harness: HarnessFactory,
) -> None:
    """A newer API (the beta's "compaction") or a compatible endpoint's own word must not pass for end_turn."""
    ran.clear()
    unknown = cast(StopReason, "compaction")
    h = harness(
        [
            Turn(blocks=[Text("Adding."), ToolUse(name="add", input={"a": 1, "b": 1})], stop_reason=unknown),
            Turn(blocks=[Text("Sorry, again: 2.")]),
        ],
        tools=[add],
    )
    finished = h.run("1+1")
    assert (finished.reason, finished.turns, len(h.server.requests)) == ("error", 1, 1)
    (error,) = h.of(ErrorEvent)
    assert "stop reason 'compaction'" in error.message and "its tool calls were not run" in error.message
    assert ran == []
    assert h.run("go on").reason == "end_turn"
    second = h.server.requests[1]
    assert_valid_request(second)
    assert (
        result_text(tool_results(second)[0])
        == "INTERRUPTED: not run: the model's turn ended with 'compaction'"
    )


def test_a_stop_sequence_ends_the_turn_like_end_turn_and_its_calls_are_not_run(
    harness: HarnessFactory,
) -> None:
    ran.clear()
    h = harness(
        [
            Turn(
                blocks=[Text("Done."), ToolUse(name="add", input={"a": 1, "b": 1})],
                stop_reason="stop_sequence",
            )
        ],
        tools=[add],
    )
    finished = h.run("1+1")
    assert (finished.reason, finished.turns) == ("end_turn", 1)
    assert ran == [] and not h.of(ErrorEvent) and not h.of(Notice)


def test_a_full_context_window_ends_the_run_with_the_way_out(harness: HarnessFactory) -> None:
    h = harness([Turn(blocks=[Text("I")], stop_reason="model_context_window_exceeded")])
    assert h.run("x").reason == "end_turn"
    assert [n.message for n in h.of(Notice)] == [
        "the model's context window is full; start over with `%agent reset`"
    ]
