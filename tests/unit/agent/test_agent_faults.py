"""Faults on the wire: the SDK retries HTTP errors; a cut stream is re-sent once, then reported."""

from __future__ import annotations

import pytest
from agent_testkit import HarnessFactory, assert_valid_request, result_text, texts, tool_results

from jupyter_agent.agent import ErrorEvent, Notice, TextDelta, ToolFinished, ToolStarted
from jupyter_agent.testing import Fault, Text, ToolUse, Turn
from jupyter_agent.tools import tool

OK = Turn(blocks=[Text("fine")])


@tool(read_only=True)
def echo(text: str) -> str:
    """Echo the text."""
    return text


@pytest.mark.parametrize(
    "fault",
    [
        pytest.param(Fault.rate_limit(retry_after=0.01), id="429 rate limit"),
        pytest.param(Fault.server_error(retry_after=0.01), id="500 server error"),
        pytest.param(Fault.overloaded(retry_after=0.01), id="529 overloaded"),
    ],
)
def test_transient_http_errors_are_retried_by_the_sdk(harness: HarnessFactory, fault: Fault) -> None:
    h = harness([Turn(fault=fault), OK])
    finished = h.run("hi")
    assert finished.reason == "end_turn"
    assert len(h.server.requests) == 2
    assert h.server.requests[0] == h.server.requests[1]
    assert h.of(ErrorEvent) == []


def test_http_errors_past_the_retries_end_the_run_with_a_retryable_error(harness: HarnessFactory) -> None:
    h = harness([Turn(fault=Fault.overloaded(retry_after=0.01))] * 2 + [OK], max_retries=1)
    finished = h.run("hi")
    assert finished.reason == "error"
    [error] = h.of(ErrorEvent)
    assert error.retryable is True
    assert error.message.startswith(
        f"the API at {h.server.url} is overloaded (529) after 1 retries: Overloaded (scripted)"
    )
    assert h.run("again").reason == "end_turn"
    assert_valid_request(h.server.requests[-1])


@pytest.mark.parametrize(
    "fault",
    [
        pytest.param(Fault.cut_stream(after_events=4), id="connection dropped"),
        pytest.param(Fault.stream_error(after_events=4), id="error event mid-stream"),
    ],
)
def test_a_cut_stream_is_sent_again_once_from_the_same_request(harness: HarnessFactory, fault: Fault) -> None:
    h = harness([Turn(blocks=[Text("a long answer that is cut")], fault=fault), Turn(blocks=[Text("whole")])])
    finished = h.run("hi")
    assert finished.reason == "end_turn"
    assert h.server.requests[0] == h.server.requests[1]
    [notice] = h.of(Notice)
    assert notice.message.startswith("the answer's stream was cut (")  # its cause, never empty
    assert notice.message.endswith("); sending the same request again")
    assert "()" not in notice.message
    assert h.session.conversation.messages[-1]["content"] == [{"type": "text", "text": "whole"}]


def test_a_second_cut_ends_the_run_with_an_error_and_the_conversation_stays_valid(
    harness: HarnessFactory,
) -> None:
    cut = Turn(
        blocks=[ToolUse(name="echo", input={"text": "x"}), Text("and more")],
        fault=Fault.cut_stream(after_events=6),
    )
    h = harness([cut, cut, Turn(blocks=[Text("recovered")])], tools=[echo])
    finished = h.run("first")
    assert finished.reason == "error"
    [error] = h.of(ErrorEvent)
    assert error.retryable is True
    assert error.message.startswith(
        f"the answer from the model API at {h.server.url} broke off twice in the middle (RemoteProtocolError: "
    )
    # the tool card of each cut attempt is closed; none of them ran
    assert len(h.of(ToolStarted)) == len(h.of(ToolFinished)) == 2
    assert all(e.result.error_code == "INTERRUPTED" for e in h.of(ToolFinished))
    assert h.session.conversation.unanswered_tool_uses() == []

    assert h.run("second").reason == "end_turn"
    body = h.server.requests[2]
    assert_valid_request(body)
    assert texts(body["messages"][0]) == ["first", "second"]
    assert tool_results(body) == []


def test_a_cut_after_tool_results_keeps_them_for_the_next_run(harness: HarnessFactory) -> None:
    cut = Turn(blocks=[Text("thinking about it")], fault=Fault.cut_stream(after_events=4))
    h = harness(
        [Turn(blocks=[ToolUse(name="echo", input={"text": "kept"})]), cut, cut, Turn(blocks=[Text("ok")])],
        tools=[echo],
    )
    assert h.run("echo").reason == "error"
    assert "".join(e.text for e in h.of(TextDelta)).startswith("thinking")
    h.run("try again")
    body = h.server.requests[3]
    assert_valid_request(body)
    assert [result_text(r) for r in tool_results(body)] == ["kept"]
    assert body["messages"][-1]["content"][-1]["text"] == "try again"
