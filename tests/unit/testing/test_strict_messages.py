"""The strict server refuses malformed conversations and tool lists the way the API does (status, type, wording)."""

from __future__ import annotations

from typing import Any

import pytest

from jupyter_agent.testing import SearchHit, ServerToolUse, Text, ToolUse, Turn, WebSearchResult

INVALID = "invalid_request_error"
PREFILL = (
    "This model does not support assistant message prefill. The conversation must end with a user message."
)
TOOLS = [{"name": "Read", "description": "Read a file.", "input_schema": {"type": "object"}}]


def call(id_: str = "toolu_1") -> dict[str, Any]:
    return {"type": "tool_use", "id": id_, "name": "Read", "input": {}}


def result(id_: str = "toolu_1", content: Any = "data") -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": id_, "content": content}


def loop(*user_blocks: dict[str, Any], calls: tuple[str, ...] = ("toolu_1",)) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": [call(c) for c in calls]},
        {"role": "user", "content": list(user_blocks)},
    ]


@pytest.mark.parametrize(
    ("messages", "message"),
    [
        (
            [{"role": "user", "content": [{"type": "text", "text": ""}]}],
            "messages: text content blocks must be non-empty",
        ),
        (
            [{"role": "user", "content": [{"type": "text", "text": " \n\t"}]}],
            "messages: text content blocks must contain non-whitespace text",
        ),
        (loop(result(content="   \n")), "messages: text content blocks must contain non-whitespace text"),
        (
            loop(result(content=[{"type": "text", "text": "\n"}])),
            "messages: text content blocks must contain non-whitespace text",
        ),
        (
            [{"role": "user", "content": []}],
            "messages.0: all messages must have non-empty content except for the optional final assistant message",
        ),
    ],
)
def test_empty_and_whitespace_only_text(api: Any, messages: list[Any], message: str) -> None:
    assert api().rejection(messages=messages, tools=TOOLS) == (400, INVALID, message)


def test_whitespace_only_system_text(api: Any) -> None:
    assert api().rejection(system="  ") == (
        400,
        INVALID,
        "system: text content blocks must contain non-whitespace text",
    )


def test_an_empty_tool_result_and_real_text_are_accepted(api: Any) -> None:
    assert api().create(messages=loop(result(content="")), tools=TOOLS).content[0].text == "ok"
    assert api().create(messages=loop(result(content=" x ")), tools=TOOLS).content[0].text == "ok"


def test_a_tool_use_without_its_result(api: Any) -> None:
    messages = loop({"type": "text", "text": "never mind"})
    assert api().rejection(messages=messages, tools=TOOLS) == (
        400,
        INVALID,
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each "
        "`tool_use` block must have a corresponding `tool_result` block in the next message.",
    )


def test_a_tool_result_after_text_in_its_message(api: Any) -> None:
    messages = loop({"type": "text", "text": "here:"}, result())
    status, kind, message = api().rejection(messages=messages, tools=TOOLS)
    assert (status, kind) == (400, INVALID)
    assert message.startswith(
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after"
    )


def test_one_of_two_parallel_calls_unanswered(api: Any) -> None:
    messages = loop(result("toolu_a"), calls=("toolu_a", "toolu_b"))
    assert "immediately after: toolu_b." in api().rejection(messages=messages, tools=TOOLS)[2]


def test_a_tool_result_without_its_call(api: Any) -> None:
    messages = [
        *loop(result()),
        {"role": "assistant", "content": "done"},
        {"role": "user", "content": [result("toolu_9")]},
    ]
    assert api().rejection(messages=messages, tools=TOOLS) == (
        400,
        INVALID,
        "messages.4.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9. Each `tool_result` "
        "block must have a corresponding `tool_use` block in the previous message.",
    )


def test_duplicate_tool_use_ids(api: Any) -> None:
    messages = loop(result("toolu_1"), calls=("toolu_1", "toolu_1"))
    assert api().rejection(messages=messages, tools=TOOLS) == (
        400,
        INVALID,
        "messages.1.content.1: `tool_use` ids must be unique",
    )


def test_results_first_then_an_update_text_is_accepted(api: Any) -> None:
    messages = loop(result(), {"type": "text", "text": "Environment update: the mode is now plan."})
    assert api().create(messages=messages, tools=TOOLS).content[0].text == "ok"


def test_assistant_prefill_on_a_model_without_it(api: Any) -> None:
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Sure, here"}]
    assert api().rejection(messages=messages) == (400, INVALID, PREFILL)
    assert api().create(model="claude-haiku-4-5", messages=messages).content[0].text == "ok"


def test_a_pause_turn_continuation_is_not_a_prefill(api: Any) -> None:
    web_search = [{"type": "web_search_20250305", "name": "web_search"}]
    server = api(
        [
            Turn(blocks=[Text("Searching."), ServerToolUse(input={"query": "q"})], stop_reason="pause_turn"),
            Turn(blocks=[Text("ok")]),
        ]
    )
    paused = server.create(tools=web_search)
    assert paused.stop_reason == "pause_turn"
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [b.model_dump() for b in paused.content]},
    ]
    assert server.create(tools=web_search, messages=messages).content[0].text == "ok"


def test_a_paused_turn_that_ends_in_text_is_continued_too(api: Any) -> None:
    web_search = [{"type": "web_search_20250305", "name": "web_search"}]
    paused_turn = Turn(
        blocks=[
            ServerToolUse(input={"query": "q"}),
            WebSearchResult(results=[SearchHit("t", "https://e.org")]),
            Text("Found it; checking more."),
        ],
        stop_reason="pause_turn",
    )
    server = api([paused_turn, Turn(blocks=[Text("ok")])])
    paused = server.create(tools=web_search)
    turn = {"role": "assistant", "content": [b.model_dump() for b in paused.content]}
    messages = [{"role": "user", "content": "hi"}, turn]
    assert server.create(tools=web_search, messages=messages).content[0].text == "ok"
    made_up = {
        "role": "assistant",
        "content": [*turn["content"][:-1], {"type": "text", "text": "A prefill."}],
    }
    assert server.rejection(tools=web_search, messages=[messages[0], made_up]) == (400, INVALID, PREFILL)


def test_a_system_message_on_a_model_without_them(api: Any) -> None:
    messages = [{"role": "user", "content": "hi"}, {"role": "system", "content": "Be terse."}]
    assert api().rejection(model="claude-sonnet-5", messages=messages) == (
        400,
        INVALID,
        "role 'system' is not supported on this model",
    )


@pytest.mark.parametrize(
    ("messages", "where"),
    [
        (
            [{"role": "system", "content": "Be terse."}, {"role": "user", "content": "hi"}],
            "the first message",
        ),
        (
            [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "hello"},
                {"role": "system", "content": "Be terse."},
                {"role": "user", "content": "next"},
            ],
            "after an assistant turn",
        ),
        (
            [
                {"role": "user", "content": "hi"},
                {"role": "system", "content": "Be terse."},
                {"role": "user", "content": "x"},
            ],
            "before a user turn",
        ),
    ],
)
def test_a_system_message_where_the_api_does_not_take_it(api: Any, messages: list[Any], where: str) -> None:
    status, kind, message = api().rejection(messages=messages)
    assert (status, kind) == (400, INVALID)
    assert "a system message must directly follow a user turn" in message and where in message


def test_a_system_message_after_tool_results_is_accepted(api: Any) -> None:
    messages = [*loop(result()), {"role": "system", "content": "The permission mode is now plan."}]
    assert api().create(messages=messages, tools=TOOLS).content[0].text == "ok"


def test_an_effort_only_system_message_needs_its_beta_header(api: Any) -> None:
    effort = {"role": "system", "content": [], "output_config": {"effort": "low"}}
    messages = [effort, {"role": "user", "content": "hi"}]
    assert api().rejection(messages=messages) == (
        400,
        INVALID,
        "messages.0.output_config: Extra inputs are not permitted",
    )
    beta = ["mid-conversation-output-config-2026-07-01"]
    assert api().create(messages=messages, betas=beta).content[0].text == "ok"


def test_manual_thinking_tool_loop_must_start_with_thinking(api: Any) -> None:
    thinking = {"type": "enabled", "budget_tokens": 2048}
    status, kind, message = api().rejection(
        model="claude-haiku-4-5", thinking=thinking, max_tokens=4096, messages=loop(result()), tools=TOOLS
    )
    assert (status, kind) == (400, INVALID)
    assert message.startswith(
        "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` "
        "is enabled, a final `assistant` message must start with a thinking block"
    )


def test_manual_thinking_after_a_finished_turn_needs_no_thinking_block(api: Any) -> None:
    thinking = {"type": "enabled", "budget_tokens": 2048}
    messages = [
        *loop(result()),
        {"role": "assistant", "content": "done"},
        {"role": "user", "content": "next"},
    ]
    message = api().create(
        model="claude-haiku-4-5", thinking=thinking, max_tokens=4096, messages=messages, tools=TOOLS
    )
    assert message.content[0].text == "ok"


@pytest.mark.parametrize(
    ("tools", "message"),
    [
        (
            [{"name": "mcp.server/tool", "input_schema": {"type": "object"}}],
            "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
        ),
        (
            [{"name": "x" * 65, "input_schema": {"type": "object"}}],
            "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
        ),
        ([TOOLS[0], TOOLS[0]], "tools: Tool names must be unique."),
        (
            [{"name": "Read", "input_schema": {"type": "array"}}],
            "tools.0.custom.input_schema.type: Input should be 'object'",
        ),
        ([{"name": "Read"}], "tools.0.custom.input_schema: Field required"),
        (
            [{"type": "web_search_20250305", "name": "search"}],
            "tools.0.web_search_20250305.name: Input should be 'web_search'",
        ),
    ],
)
def test_tool_definitions_the_api_rejects(api: Any, tools: list[Any], message: str) -> None:
    assert api().rejection(tools=tools) == (400, INVALID, message)


def test_a_64_character_tool_name_is_accepted(api: Any) -> None:
    assert (
        api().create(tools=[{"name": "m" * 64, "input_schema": {"type": "object"}}]).content[0].text == "ok"
    )


def test_more_than_four_cache_breakpoints(api: Any) -> None:
    mark = {"cache_control": {"type": "ephemeral"}}
    system = [{"type": "text", "text": f"part {n}", **mark} for n in range(3)]
    tools = [{**TOOLS[0], **mark}, {"name": "Write", "input_schema": {"type": "object"}, **mark}]
    assert api().rejection(system=system, tools=tools) == (
        400,
        INVALID,
        "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    )
    assert api().create(system=system, tools=tools[:1]).content[0].text == "ok"


def test_a_prompt_over_the_models_context_window(api: Any) -> None:
    big = "word " * 170_000  # about 212k tokens by the server's estimate
    status, kind, message = api().rejection(
        model="claude-haiku-4-5", messages=[{"role": "user", "content": big}]
    )
    assert (status, kind) == (400, INVALID)
    assert message.startswith("prompt is too long: ") and message.endswith(" tokens > 200000 maximum")
    assert (
        api().create(model="claude-sonnet-5-5", messages=[{"role": "user", "content": big}]).content[0].text
        == "ok"
    )


def test_a_tool_loop_that_follows_the_rules_is_answered(api: Any) -> None:
    server = api(
        [Turn(blocks=[Text("Reading."), ToolUse(name="Read", input={})]), Turn(blocks=[Text("done")])]
    )
    first = server.create(tools=TOOLS)
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [b.model_dump() for b in first.content]},
        {"role": "user", "content": [result(first.content[1].id)]},
    ]
    assert server.create(tools=TOOLS, messages=messages).content[0].text == "done"


CLEAR_AT = "mid-conversation-system-clear-at-2026-08-21"
SCOPE = "(clear_at: 'next_user_message')"


@pytest.mark.parametrize(
    ("system", "message"),
    [
        (
            {"content": [{"type": "tool_removal", "tool": {"type": "tool_reference", "name": "Read"}}]},
            f"messages.1: a turn-scoped system message supports text blocks only {SCOPE}",
        ),
        (
            {"content": "Be brief.", "output_config": {"effort": "low"}},
            f"messages.1: output_config is not permitted on a turn-scoped system message {SCOPE}",
        ),
        (
            {"content": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}]},
            f"messages.1.content.0: cache_control is not permitted on a turn-scoped system message {SCOPE}",
        ),
    ],
)
def test_a_turn_scoped_system_message_holds_text_only(api: Any, system: dict[str, Any], message: str) -> None:
    betas = [CLEAR_AT, "mid-conversation-output-config-2026-07-01", "inline-tools-2026-09-15"]
    scoped = {"role": "system", "clear_at": "next_user_message", **system}
    messages = [{"role": "user", "content": "hi"}, scoped]
    assert api().rejection(messages=messages, tools=TOOLS, betas=betas) == (400, INVALID, message)
    plain = {"role": "system", "clear_at": "next_user_message", "content": "Be brief."}
    assert api().create(messages=[messages[0], plain], betas=betas).content[0].text == "ok"


def test_a_finished_web_search_needs_the_tool_declared(api: Any) -> None:
    web_search = [{"type": "web_search_20250305", "name": "web_search"}]
    server = api(
        [
            Turn(
                blocks=[
                    ServerToolUse(input={"query": "q"}),
                    WebSearchResult(results=[SearchHit("t", "https://e.org")]),
                    Text("Found it."),
                ]
            ),
            Turn(blocks=[Text("ok")]),
        ]
    )
    answer = server.create(tools=web_search)
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [b.model_dump() for b in answer.content]},
        {"role": "user", "content": "thanks"},
    ]
    call_id = answer.content[0].id
    assert server.rejection(messages=messages, tools=TOOLS) == (
        400,
        INVALID,
        f"messages.1.content: `web_search` tool use with id `{call_id}` is in the conversation, but no "
        "`web_search` tool was provided; keep `web_search` declared in `tools` for the whole conversation (to stop "
        "offering it, append a `tool_removal` block)",
    )
    assert server.create(messages=messages, tools=[*TOOLS, *web_search]).content[0].text == "ok"
