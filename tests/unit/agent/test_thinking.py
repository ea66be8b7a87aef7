"""Thinking as each model takes it: the `thinking`, `output_config.effort` and `max_tokens` on the wire are built
from the model table's row; what a model cannot take is refused before anything is sent; thinking blocks go back
exactly as they came."""

from __future__ import annotations

import pytest
from agent_testkit import Harness, HarnessFactory, assert_valid_request, texts

from jupyter_agent.agent import ErrorEvent, Notice, TextDelta
from jupyter_agent.agent.events import ThinkingDelta, ThinkingDone
from jupyter_agent.agent.models import MODELS
from jupyter_agent.agent.thinking import (
    DISPLAY_UPDATES_BETA,
    ThinkingSettingError,
    effort_for_budget,
    parse_thinking,
    plan_thinking,
)
from jupyter_agent.agent.turn import BINDING_BETA
from jupyter_agent.testing import Text, Thinking, ToolUse, Turn
from jupyter_agent.tools import tool

#: A current model that takes only a thinking budget (64K output, no effort).
BUDGET_MODEL = "claude-haiku-4-5"


@tool(read_only=True)
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _betas(h: Harness, index: int) -> set[str]:
    recorded = [r for r in h.server.recorded if r.index is not None][index]
    header = recorded.headers.get("anthropic-beta", "")
    return {b.strip() for b in header.split(",") if b.strip()}


def test_a_thinking_budget_is_sent_to_a_budget_model_and_thinking_streams_as_its_own_events(
    harness: HarnessFactory,
) -> None:
    h = harness(
        [Turn(blocks=[Thinking("Let me add these carefully."), Text("It is 2.")], chunk_size=5)],
        thinking=4096,
        max_tokens=16_000,
        model=BUDGET_MODEL,
    )
    h.run("1+1?")
    body = h.server.requests[0]
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 4096}
    assert body["max_tokens"] == 16_000
    assert "output_config" not in body
    assert "".join(e.text for e in h.of(ThinkingDelta)) == "Let me add these carefully."
    assert len(h.of(ThinkingDelta)) > 1 and len(h.of(ThinkingDone)) == 1
    assert "".join(e.text for e in h.of(TextDelta)) == "It is 2."


def test_sonnet_5_5_by_default_thinks_adaptively_and_its_notes_between_tool_calls_are_shown_as_text(
    harness: HarnessFactory,
) -> None:
    h = harness(
        [
            Turn(blocks=[Thinking("Reading the loader."), ToolUse(name="add", input={"a": 1, "b": 2})]),
            Turn(blocks=[Text("3")]),
        ],
        tools=[add],
    )
    h.run("1+2")
    first, second = h.server.requests
    assert first["model"] == "claude-sonnet-5-5"
    assert first["thinking"] == {"type": "adaptive", "display": "updates"}
    assert {DISPLAY_UPDATES_BETA, BINDING_BETA} <= _betas(h, 0)
    assert "".join(e.text for e in h.of(TextDelta)).startswith("Reading the loader.")
    assert not h.of(ThinkingDelta)
    # the thinking block goes back as a thinking block, exactly as it came
    [thinking] = [b for b in second["messages"][1]["content"] if b["type"] == "thinking"]
    assert thinking["thinking"] == "Reading the loader."
    assert_valid_request(second)


def test_a_model_that_does_not_think_unasked_is_sent_no_thinking(harness: HarnessFactory) -> None:
    h = harness([Turn(blocks=[Text("hi")])], model=BUDGET_MODEL)
    h.run("hi")
    assert "thinking" not in h.server.requests[0]
    assert BINDING_BETA not in _betas(h, 0)  # no preserved thinking on this model


def test_a_budget_for_one_run_raises_max_tokens_above_it_within_the_models_ceiling(
    harness: HarnessFactory,
) -> None:
    h = harness([Turn(blocks=[Text("a")]), Turn(blocks=[Text("b")])], max_tokens=32_000, model=BUDGET_MODEL)
    h.run("think hard", config={"thinking": 40_000})
    h.run("now quickly")
    first, second = h.server.requests
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 40_000}
    assert first["max_tokens"] == 64_000  # 72,000 asked, the model's output ceiling
    assert "thinking" not in second and second["max_tokens"] == 32_000


def test_a_budget_on_a_model_that_takes_none_maps_to_adaptive_at_an_effort_and_says_so(
    harness: HarnessFactory,
) -> None:
    h = harness([Turn(blocks=[Text("a")])], thinking=16_000)
    h.run("x")
    body = h.server.requests[0]
    assert body["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert body["output_config"] == {"effort": "high"}
    assert "budget_tokens" not in str(body)
    assert any("'claude-sonnet-5-5' takes no thinking budget" in n.message for n in h.of(Notice))


def test_effort_is_sent_as_output_config_and_wins_over_a_mapped_budget(harness: HarnessFactory) -> None:
    h = harness([Turn(blocks=[Text("a")])], thinking=16_000, effort="low")
    h.run("x")
    assert h.server.requests[0]["output_config"] == {"effort": "low"}


@pytest.mark.parametrize(
    ("model", "config", "message"),
    [
        (BUDGET_MODEL, {"effort": "high"}, "'claude-haiku-4-5' takes no effort level"),
        ("claude-opus-5-5", {"thinking": "off"}, "'claude-opus-5-5' always thinks"),
        (
            "claude-sonnet-5-5",
            {"thinking": "off", "effort": "max"},
            "with thinking off takes effort 'high' or below",
        ),
        (BUDGET_MODEL, {"thinking": 70_000}, "does not fit 'claude-haiku-4-5'"),
        ("claude-3-5-haiku", {"thinking": 4096}, "'claude-3-5-haiku' takes no thinking budget"),
        ("claude-opus-4-6", {"effort": "xhigh"}, "'claude-opus-4-6' takes effort low, medium, high, max"),
    ],
)
def test_a_setting_the_model_cannot_take_ends_the_run_before_anything_is_sent(
    harness: HarnessFactory, model: str, config: dict[str, object], message: str
) -> None:
    h = harness([Turn(blocks=[Text("never")])], model=model, **config)
    finished = h.run("x")
    assert finished.reason == "error"
    assert h.server.requests == []
    [error] = h.of(ErrorEvent)
    assert error.message.startswith("THINKING_SETTING: ") and message in error.message
    assert h.session.conversation.messages == []  # nothing was added either


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("claude-sonnet-5-5", {"type": "between_tools"}),
        ("claude-haiku-5-5", {"type": "disabled"}),
        (BUDGET_MODEL, {"type": "disabled"}),
    ],
)
def test_off_is_the_least_thinking_each_model_takes(model: str, expected: dict[str, str]) -> None:
    plan = plan_thinking(setting="off", effort=None, model=model, max_tokens=32_000)
    assert plan.thinking == expected


def test_adaptive_is_sent_where_the_model_takes_it_and_a_budget_elsewhere(harness: HarnessFactory) -> None:
    h = harness([Turn(blocks=[Text("a")]), Turn(blocks=[Text("b")])], thinking="adaptive")
    h.run("x", config={"model": "claude-opus-4-6"})
    h.run("y", config={"model": BUDGET_MODEL})
    assert h.server.requests[0]["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert h.server.requests[1]["thinking"] == {"type": "enabled", "budget_tokens": 8000}
    assert any("adaptive thinking is not known" in n.message for n in h.of(Notice))


def test_max_tokens_never_exceeds_any_models_ceiling() -> None:
    for name, facts in MODELS.items():
        ceiling = facts.accepts.max_output
        assert ceiling is not None
        plan = plan_thinking(setting=None, effort=None, model=name, max_tokens=1_000_000)
        assert plan.max_tokens == ceiling, name


def test_every_model_row_takes_what_its_default_request_sends() -> None:
    for name, facts in MODELS.items():
        plan = plan_thinking(setting=None, effort=None, model=name, max_tokens=32_000)
        if plan.thinking is not None:
            assert plan.thinking["type"] in facts.accepts.thinking_types, name


def test_signed_thinking_goes_back_unchanged_with_the_tool_result(harness: HarnessFactory) -> None:
    h = harness(
        [
            Turn(blocks=[Thinking("Use the tool."), ToolUse(name="add", input={"a": 1, "b": 2})]),
            Turn(blocks=[Text("3")]),
        ],
        tools=[add],
        thinking=2048,
        model=BUDGET_MODEL,
    )
    h.run("1+2")
    first_answer = h.session.conversation.messages[1]["content"][0]
    second = h.server.requests[1]
    assert_valid_request(second)
    assert second["messages"][1]["content"][0] == first_answer
    assert first_answer["type"] == "thinking" and first_answer["thinking"] == "Use the tool."
    assert first_answer["signature"]
    assert second["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert texts(second["messages"][0]) == ["1+2"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("off", "off"),
        ("none", "off"),
        ("", None),
        ("adaptive", "adaptive"),
        ("16000", 16000),
        ("8_000", 8000),
    ],
)
def test_thinking_setting_text_parses(text: str, expected: object) -> None:
    assert parse_thinking(text) == expected


@pytest.mark.parametrize("text", ["lots", "512"])
def test_a_bad_thinking_setting_says_what_is_accepted(text: str) -> None:
    with pytest.raises(ValueError, match="thinking: "):
        parse_thinking(text)


@pytest.mark.parametrize(
    ("budget", "efforts", "expected"),
    [
        (2_000, ("low", "medium", "high", "xhigh", "max"), "low"),
        (10_000, ("low", "medium", "high", "xhigh", "max"), "medium"),
        (32_000, ("low", "medium", "high", "xhigh", "max"), "high"),
        (50_000, ("low", "medium", "high", "max"), "high"),
        (100_000, ("low", "medium", "high", "max"), "max"),
    ],
)
def test_a_budget_maps_to_the_effort_it_stands_for(budget: int, efforts: tuple, expected: str) -> None:  # type: ignore[type-arg]
    assert effort_for_budget(budget, efforts) == expected


def test_the_error_names_the_model_and_what_it_takes() -> None:
    with pytest.raises(
        ThinkingSettingError, match=r"'claude-opus-5-5' always thinks: it takes thinking.type \"adaptive\""
    ):
        plan_thinking(setting="off", effort=None, model="claude-opus-5-5", max_tokens=1000)
