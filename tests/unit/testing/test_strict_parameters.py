"""The strict server refuses the parameters a model's row does not take, with the API's status, type and wording.

Each request goes through the real `anthropic` client over HTTP; a refused request uses no script entry.
"""

from __future__ import annotations

import warnings
from typing import Any

import anthropic
import pytest
from strict_kit import raw_post

from jupyter_agent.testing.strict.models import SERVED_MODELS, scripted_model

INVALID = "invalid_request_error"
ADAPTIVE_HINT = 'Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.'
BUDGET_DOCS = (
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size"
)


def test_an_unknown_model_is_the_apis_404_naming_it(api: Any) -> None:
    assert api().rejection(model="claude-scripted") == (404, "not_found_error", "model: claude-scripted")


def test_a_retired_model_is_not_served(api: Any) -> None:
    assert api().rejection(model="claude-retired-0")[:2] == (404, "not_found_error")


def test_every_served_model_answers_a_plain_request(api: Any) -> None:
    """Served until its end of life, a deprecated model answers; the SDK's warning about it is the only one."""
    server = api()
    for model in SERVED_MODELS:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            assert server.create(model=model).content[0].text == "ok"
        assert all(f"The model '{model}' is deprecated" in str(w.message) for w in seen), model
        if len(server.server.requests) == 10:
            server = api()


def test_a_dated_snapshot_id_is_the_same_model(api: Any) -> None:
    message = api().create(model="claude-haiku-4-5-20251001", max_tokens=64_000)
    assert message.model == "claude-haiku-4-5-20251001"


def test_a_row_added_by_the_caller_is_served(api: Any) -> None:
    server = api(models=[scripted_model("my-gateway-model", like="claude-haiku-4-5")])
    assert server.create(model="my-gateway-model", max_tokens=1000).content[0].text == "ok"
    assert server.rejection(model="my-gateway-model", max_tokens=64_001)[1] == INVALID


def test_max_tokens_over_the_models_output_limit(api: Any) -> None:
    assert api().rejection(model="claude-haiku-4-5", max_tokens=72_000) == (
        400,
        INVALID,
        "max_tokens: 72000 > 64000, which is the maximum allowed number of output tokens for claude-haiku-4-5",
    )


def test_max_tokens_at_the_models_limit_is_accepted(api: Any) -> None:
    assert api().create(model="claude-sonnet-5-5", max_tokens=128_000).content[0].text == "ok"


def test_a_missing_max_tokens(api: Any) -> None:
    server = api()  # the SDK will not send it; a bare HTTP client shows the server's answer
    status, body = raw_post(
        server.server, {"model": "claude-sonnet-5-5", "messages": [{"role": "user", "content": "hi"}]}
    )
    assert (status, body["error"]["type"], body["error"]["message"]) == (
        400,
        INVALID,
        "max_tokens: Field required",
    )


def test_a_thinking_budget_on_sonnet_5_5(api: Any) -> None:
    thinking = {"type": "enabled", "budget_tokens": 16_000}
    assert api().rejection(thinking=thinking, max_tokens=32_000) == (
        400,
        INVALID,
        f'"thinking.type.enabled" is not supported for this model. {ADAPTIVE_HINT}',
    )


def test_thinking_disabled_on_sonnet_5_5_points_to_between_tools(api: Any) -> None:
    assert api().rejection(thinking={"type": "disabled"}) == (
        400,
        INVALID,
        'To turn thinking off on this model, send "thinking": {"type": "between_tools"} instead of {"type": '
        '"disabled"}. The model does not think before responding. The short updates it writes between tool calls '
        "come back as thinking blocks.",
    )


def test_thinking_disabled_on_opus_5_5(api: Any) -> None:
    assert api().rejection(model="claude-opus-5-5", thinking={"type": "disabled"}) == (
        400,
        INVALID,
        f'"thinking.type.disabled" is not supported for this model. {ADAPTIVE_HINT}',
    )


def test_between_tools_on_a_model_other_than_sonnet_5_5(api: Any) -> None:
    assert api().rejection(model="claude-opus-5-5", thinking={"type": "between_tools"}) == (
        400,
        INVALID,
        '"thinking.type.between_tools" is not supported for this model.',
    )


def test_between_tools_at_max_effort_on_sonnet_5_5(api: Any) -> None:
    thinking = {"type": "between_tools"}
    assert api().rejection(thinking=thinking, output_config={"effort": "max"}) == (
        400,
        INVALID,
        "output_config.effort 'max' is not supported when thinking is disabled on this model. Use effort 'high' or "
        "below, or enable thinking.",
    )
    assert api().create(thinking=thinking, output_config={"effort": "high"}).content[0].text == "ok"


def test_thinking_off_on_haiku_5_5_only_at_high_effort_or_below(api: Any) -> None:
    off = {"type": "disabled"}
    assert (
        api().create(model="claude-haiku-5-5", thinking=off, output_config={"effort": "high"}).content[0].text
        == "ok"
    )
    assert api().rejection(model="claude-haiku-5-5", thinking=off, output_config={"effort": "xhigh"})[2] == (
        "output_config.effort 'xhigh' is not supported when thinking is disabled on this model. Use effort 'high' or "
        "below, or enable thinking."
    )


def test_between_tools_takes_no_other_field(api: Any) -> None:
    status, kind, message = api().rejection(thinking={"type": "between_tools", "display": "summarized"})
    assert (status, kind, message) == (
        400,
        INVALID,
        "thinking.between_tools.display: Extra inputs are not permitted",
    )


def test_adaptive_thinking_on_sonnet_4_5(api: Any) -> None:
    assert api().rejection(model="claude-haiku-4-5", thinking={"type": "adaptive"}) == (
        400,
        INVALID,
        "adaptive thinking is not supported on this model",
    )


def test_a_budget_below_the_minimum(api: Any) -> None:
    thinking = {"type": "enabled", "budget_tokens": 1000}
    assert api().rejection(model="claude-haiku-4-5", thinking=thinking, max_tokens=4000) == (
        400,
        INVALID,
        "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
    )


def test_a_budget_not_below_max_tokens(api: Any) -> None:
    thinking = {"type": "enabled", "budget_tokens": 40_000}
    assert api().rejection(model="claude-haiku-4-5", thinking=thinking, max_tokens=40_000) == (
        400,
        INVALID,
        f"`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at {BUDGET_DOCS}",
    )
    assert (
        api().create(model="claude-haiku-4-5", thinking=thinking, max_tokens=40_001).content[0].text == "ok"
    )


def test_block_binding_without_the_beta_header(api: Any) -> None:
    thinking = {"type": "adaptive", "block_binding": {"prefix_mismatch_behavior": "drop_block"}}
    assert api().rejection(thinking=thinking) == (
        400,
        INVALID,
        "thinking.adaptive.block_binding: Extra inputs are not permitted",
    )


def test_an_effort_level_the_model_does_not_have(api: Any) -> None:
    status, kind, message = api().rejection(model="claude-opus-4-6", output_config={"effort": "xhigh"})
    assert (status, kind) == (400, INVALID)
    assert message.startswith("output_config.effort 'xhigh' is not supported by this model")


@pytest.mark.parametrize(
    ("model", "sampling", "message"),
    [
        ("claude-sonnet-5-5", {"temperature": 0.2}, "`temperature` is deprecated for this model."),
        ("claude-opus-4-8", {"top_k": 40}, "`top_k` is deprecated for this model."),
        ("claude-haiku-5-5", {"top_p": 1}, "`top_p` must be 0.99 for this model."),
        (
            "claude-haiku-5-5",
            {"temperature": 1, "top_p": 0.99},
            "`temperature` and `top_p` cannot both be specified for this model.",
        ),
    ],
)
def test_sampling_parameters_the_model_rejects(
    api: Any, model: str, sampling: dict[str, Any], message: str
) -> None:
    assert api().rejection(model=model, extra_body=sampling) == (400, INVALID, message)


def test_sampling_parameters_older_models_take_without_thinking(api: Any) -> None:
    assert (
        api().create(model="claude-haiku-4-5", extra_body={"temperature": 0.2, "top_k": 5}).content[0].text
        == "ok"
    )
    thinking = {"type": "enabled", "budget_tokens": 2048}
    assert api().rejection(
        model="claude-haiku-4-5", thinking=thinking, max_tokens=4096, extra_body={"temperature": 0.2}
    ) == (
        400,
        INVALID,
        "`temperature` may only be set to 1 when thinking is enabled.",
    )


def test_forced_tool_choice_on_sonnet_5_5(api: Any) -> None:
    tools = [{"name": "Read", "input_schema": {"type": "object"}}]
    assert api().rejection(tools=tools, tool_choice={"type": "any"}) == (
        400,
        INVALID,
        'tool_choice: type "tool" and "any" are not supported for this model.',
    )
    assert (
        api().create(model="claude-haiku-5-5", tools=tools, tool_choice={"type": "any"}).content[0].text
        == "ok"
    )


def test_forced_tool_choice_with_a_thinking_budget(api: Any) -> None:
    tools = [{"name": "Read", "input_schema": {"type": "object"}}]
    thinking = {"type": "enabled", "budget_tokens": 2048}
    status, kind, message = api().rejection(
        model="claude-haiku-4-5",
        tools=tools,
        tool_choice={"type": "tool", "name": "Read"},
        thinking=thinking,
        max_tokens=4096,
    )
    assert (status, kind, message) == (
        400,
        INVALID,
        "Thinking may not be enabled when tool_choice forces tool use.",
    )


def test_count_tokens_refuses_what_the_model_refuses(api: Any) -> None:
    server = api()
    tools = [{"name": "Read", "input_schema": {"type": "object"}}]
    with pytest.raises(
        anthropic.BadRequestError, match='tool_choice: type "tool" and "any" are not supported'
    ):
        server.count_tokens(tools=tools, tool_choice={"type": "any"})
    assert server.count_tokens().input_tokens > 0
    assert server.server.requests == []  # counting uses no script entry
