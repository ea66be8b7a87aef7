"""Extended thinking: the `thinking` parameter on the wire, thinking streamed as its own events, kept with tools."""

from __future__ import annotations

import dataclasses

import pytest
from agent_testkit import HarnessFactory, assert_valid_request

from jupyter_agent.agent import Notice, TextDelta, models
from jupyter_agent.agent.events import ThinkingDelta, ThinkingDone
from jupyter_agent.agent.thinking import parse_thinking
from jupyter_agent.testing import Text, Thinking, ToolUse, Turn
from jupyter_agent.tools import tool


@tool(read_only=True)
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def test_a_thinking_budget_is_sent_and_thinking_streams_as_its_own_events(harness: HarnessFactory) -> None:
    h = harness(
        [Turn(blocks=[Thinking("Let me add these carefully."), Text("It is 2.")], chunk_size=5)],
        thinking=4096,
        max_tokens=16_000,
    )
    h.run("1+1?")
    body = h.server.requests[0]
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 4096}
    assert body["max_tokens"] == 16_000
    assert "".join(e.text for e in h.of(ThinkingDelta)) == "Let me add these carefully."
    assert len(h.of(ThinkingDelta)) > 1 and len(h.of(ThinkingDone)) == 1
    assert "".join(e.text for e in h.of(TextDelta)) == "It is 2."


def test_without_thinking_no_parameter_is_sent(harness: HarnessFactory) -> None:
    h = harness([Turn(blocks=[Text("hi")])])
    h.run("hi")
    assert "thinking" not in h.server.requests[0]


def test_think_for_one_run_overrides_the_session_and_max_tokens_rises_above_the_budget(
    harness: HarnessFactory,
) -> None:
    h = harness([Turn(blocks=[Text("a")]), Turn(blocks=[Text("b")])], max_tokens=8000)
    h.run("think hard", config={"thinking": 10_000})
    h.run("now quickly")
    first, second = h.server.requests
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 10_000}
    assert first["max_tokens"] == 18_000
    assert "thinking" not in second


def test_adaptive_is_sent_where_the_model_takes_it_and_a_budget_elsewhere(harness: HarnessFactory) -> None:
    h = harness([Turn(blocks=[Text("a")]), Turn(blocks=[Text("b")])], thinking="adaptive")
    h.run("x", config={"model": "claude-opus-4-6"})
    h.run("y", config={"model": "claude-haiku-4-5"})
    assert h.server.requests[0]["thinking"] == {"type": "adaptive"}
    assert h.server.requests[1]["thinking"] == {"type": "enabled", "budget_tokens": 8000}
    assert any("adaptive thinking is not known" in n.message for n in h.of(Notice))


def test_a_model_without_extended_thinking_is_sent_none_and_the_cell_says_so(
    harness: HarnessFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model the table says takes no thinking: a request with it would be a 400. (Claude 3.5 Haiku was one;
    it is past its end of life, so the test's model is a row of its own.)"""
    no_thinking = dataclasses.replace(models.MODELS["claude-haiku-4-5"], thinking="none")
    monkeypatch.setitem(models._BY_NAME, "claude-plain-1", no_thinking)
    h = harness([Turn(blocks=[Text("a")])], thinking=4096, model="claude-plain-1-20260101")
    assert h.run("x").reason == "end_turn"
    assert "thinking" not in h.server.requests[0]
    assert "'claude-plain-1-20260101' does not take extended thinking; running without it" in [
        n.message for n in h.of(Notice)
    ]


def test_signed_thinking_goes_back_unchanged_with_the_tool_result(harness: HarnessFactory) -> None:
    h = harness(
        [
            Turn(blocks=[Thinking("Use the tool."), ToolUse(name="add", input={"a": 1, "b": 2})]),
            Turn(blocks=[Text("3")]),
        ],
        tools=[add],
        thinking=2048,
    )
    h.run("1+2")
    second = h.server.requests[1]
    assert_valid_request(second)
    assert second["messages"][1]["content"][0] == {
        "type": "thinking",
        "thinking": "Use the tool.",
        "signature": "scripted-signature",
    }
    assert second["thinking"] == {"type": "enabled", "budget_tokens": 2048}


@pytest.mark.parametrize(
    ("text", "expected"),
    [("off", None), ("", None), ("adaptive", "adaptive"), ("16000", 16000), ("8_000", 8000)],
)
def test_thinking_setting_text_parses(text: str, expected: object) -> None:
    assert parse_thinking(text) == expected


@pytest.mark.parametrize("text", ["lots", "512"])
def test_a_bad_thinking_setting_says_what_is_accepted(text: str) -> None:
    with pytest.raises(ValueError, match="thinking: "):
        parse_thinking(text)
