"""Tool inputs built to break the loop — NaN, Infinity, a 5,000-digit integer, 100k-deep nesting — through the
real SDK and the scripted server: each is INVALID_ARGS for that call, the run goes on, and the next run of the
same session sends a valid request."""

from __future__ import annotations

import json

import pytest
from agent_testkit import HarnessFactory, assert_valid_request, result_text, tool_results

from jupyter_agent.agent import ErrorEvent
from jupyter_agent.testing import Text, ToolUse, Turn
from jupyter_agent.tools import tool


@tool(read_only=True)
def scale(factor: float, values: list[float] | None = None) -> str:
    """Scale some values."""
    return f"scaled by {factor}"


HOSTILE = {
    "NaN": '{"factor": NaN}',
    "Infinity": '{"factor": Infinity}',
    "-Infinity": '{"factor": -Infinity}',
    "overflowing float": '{"factor": 1e999}',
    "5000-digit integer": '{"factor": ' + "9" * 5000 + "}",
    "100k-deep nesting": '{"factor": 1, "values": ' + "[" * 100_000 + "]" * 100_000 + "}",
}


@pytest.mark.parametrize("raw", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_tool_json_is_invalid_args_and_the_session_stays_usable(
    harness: HarnessFactory, raw: str
) -> None:
    h = harness(
        [
            Turn(blocks=[ToolUse(name="scale", raw_input=raw)]),
            Turn(blocks=[Text("That input was bad.")]),
            Turn(blocks=[ToolUse(name="scale", input={"factor": 2})]),
            Turn(blocks=[Text("Scaled.")]),
        ],
        tools=[scale],
    )
    first = h.run("scale it")
    assert first.reason == "end_turn", h.of(ErrorEvent)
    answered = h.server.requests[1]
    assert_valid_request(answered)
    assert answered["messages"][1]["content"][0]["input"] == {}  # the call stays, with a plain object input
    [bad] = tool_results(answered)
    assert bad["is_error"] is True
    assert result_text(bad).startswith("INVALID_ARGS: scale was called with invalid arguments")

    second = h.run("again, properly")
    assert second.reason == "end_turn", h.of(ErrorEvent)
    assert h.of(ErrorEvent) == []
    later = h.server.requests[3]
    assert_valid_request(later)
    assert result_text(tool_results(later)[0]) == "scaled by 2.0"
    json.dumps(h.session.conversation.request_messages(cache=False), allow_nan=False)  # still plain JSON
