"""Mid-conversation tool changes (`tool_addition` / `tool_removal` in a system message) are checked as the API checks
them: their beta header, references that resolve, names that do not collide, where they may stand, and definitions
that obey the rules of `tools`; the server records which tools are available at the end."""

from __future__ import annotations

from typing import Any

import pytest
from strict_kit import Api

from jupyter_agent.testing import SearchHit, ServerToolUse, Text, Thinking, ToolUse, Turn, WebSearchResult

INVALID = "invalid_request_error"
INLINE = "inline-tools-2026-09-15"
BY_REFERENCE = "mid-conversation-tool-changes-2026-07-01"
BINDING = "thinking-binding-controls-2026-08-01"
READ = {"name": "Read", "description": "Read a file.", "input_schema": {"type": "object"}}
FETCH = {
    "name": "Fetch",
    "description": "Fetch a page.",
    "input_schema": {"type": "object"},
    "defer_loading": True,
}
TOOLS = [READ, FETCH]
WRITE = {"name": "Write", "description": "Write a file.", "input_schema": {"type": "object"}}


def reference(name: str) -> dict[str, Any]:
    return {"type": "tool_reference", "name": name}


def add(tool: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "tool_addition", "tool": tool, **extra}


def define(definition: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return add({"type": "tool_definition", "definition": definition}, **extra)


def remove(name: str) -> dict[str, Any]:
    return {"type": "tool_removal", "tool": reference(name)}


def system(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "system", "content": list(blocks)}


def after_question(*blocks: dict[str, Any]) -> list[dict[str, Any]]:
    """A user question, then a system message of `blocks` (the end of the conversation)."""
    return [{"role": "user", "content": "read data.csv"}, system(*blocks)]


def refused(
    api: Api, messages: list[dict[str, Any]], betas: list[str] | None = None
) -> tuple[int, dict[str, Any]]:
    return api.refused(messages=messages, tools=TOOLS, **({} if betas is None else {"betas": betas}))


def test_tool_changes_need_one_of_their_beta_headers(api: Any) -> None:
    server = api()
    messages = after_question(add(reference("Fetch")))
    status, error = refused(server, messages)
    assert (status, error["type"]) == (400, INVALID)
    assert error["message"] == (
        "messages.1.content.0: Input tag 'tool_addition' found using 'type' does not match any of the expected "
        f"tags: 'text'; tool changes need the `{INLINE}` (or `{BY_REFERENCE}`) value in the `anthropic-beta` header"
    )
    for betas in ([INLINE], [BY_REFERENCE], [BINDING, INLINE]):  # the SDK joins several with commas
        assert server.create(messages=messages, tools=TOOLS, betas=betas).content[0].text == "ok"
    assert server.server.recorded[-1].headers["anthropic-beta"] == f"{BINDING},{INLINE}"


def test_an_inline_definition_needs_the_inline_tools_beta(api: Any) -> None:
    server = api()
    messages = after_question(define(WRITE))
    status, error = refused(server, messages, [BY_REFERENCE])
    assert (status, error["type"]) == (400, INVALID)
    assert error["message"] == (
        "messages.1.content.0.tool: Input tag 'tool_definition' found using 'type' does not match any of the "
        "expected tags: 'tool_reference', 'mcp_tool_reference', 'mcp_toolset_reference'; an inline definition "
        f"needs the `{INLINE}` value in the `anthropic-beta` header"
    )
    assert server.create(messages=messages, tools=TOOLS, betas=[INLINE]).content[0].text == "ok"


def test_a_removal_takes_no_definition(api: Any) -> None:
    block = {"type": "tool_removal", "tool": {"type": "tool_definition", "definition": WRITE}}
    status, error = refused(api(), after_question(block), [INLINE])
    assert status == 400
    assert error["message"].startswith(
        "messages.1.content.0.tool: Input tag 'tool_definition' found using 'type'"
    )
    assert error["message"].endswith("'tool_reference', 'mcp_tool_reference', 'mcp_toolset_reference'")


@pytest.mark.parametrize("block", [add(reference("Grep")), remove("Grep")])
def test_a_reference_to_no_known_tool_is_tool_reference_unresolved(api: Any, block: dict[str, Any]) -> None:
    server = api()
    status, error = refused(server, after_question(block), [INLINE])
    assert str(server.server.recorded[-1].refusal).endswith("[tool_reference_unresolved]")
    assert (status, error["type"], error["details"]) == (
        400,
        INVALID,
        {"error_code": "tool_reference_unresolved"},
    )
    assert error["message"] == (
        "messages.1.content.0.tool: `tool_reference` 'Grep' names no tool declared in `tools` or defined by an "
        "earlier `tool_addition` block; declare it in `tools` (with defer_loading: true to keep it hidden) or add "
        "it with a `tool_definition`"
    )


def test_a_reference_resolves_to_a_tool_defined_earlier_in_the_messages(api: Any) -> None:
    server = api()
    messages = [
        *after_question(define(WRITE)),
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "stop writing"},
        system(remove("Write")),
        {"role": "assistant", "content": "Understood."},
        {"role": "user", "content": "write again"},
        system(add(reference("Write"))),
    ]
    assert server.create(messages=messages, tools=TOOLS, betas=[INLINE]).content[0].text == "ok"
    assert server.server.recorded[-1].available_tools == ("Read", "Write")
    # Without that definition, the same reference does not resolve.
    _, error = refused(server, [messages[0], *messages[2:]], [INLINE])
    assert error["details"] == {"error_code": "tool_reference_unresolved"}


@pytest.mark.parametrize(
    ("block", "name"),
    [(add(reference("Read")), "Read"), (define({**WRITE, "name": "Read"}), "Read")],
)
def test_adding_a_name_that_is_available_is_tool_name_conflict(
    api: Any, block: dict[str, Any], name: str
) -> None:
    status, error = refused(api(), after_question(block), [INLINE])
    assert (status, error["details"]) == (400, {"error_code": "tool_name_conflict"})
    assert error["message"] == (
        f"messages.1.content.0: a tool named '{name}' is already available at this point; to redefine it, remove "
        "it first with a `tool_removal` block"
    )


def test_adding_the_same_definition_twice_is_a_conflict(api: Any) -> None:
    _, error = refused(api(), after_question(define(WRITE), define(WRITE)), [INLINE])
    assert error["details"] == {"error_code": "tool_name_conflict"}
    assert error["message"].startswith("messages.1.content.1: a tool named 'Write'")


def test_a_removal_then_an_addition_of_the_same_name_redefines_it(api: Any) -> None:
    server = api()
    changed = {**READ, "description": "Read a file, with line numbers."}
    messages = after_question(remove("Read"), define(changed))
    assert server.create(messages=messages, tools=TOOLS, betas=[INLINE]).content[0].text == "ok"
    assert server.server.recorded[-1].available_tools == ("Read",)
    later = [
        *after_question(remove("Read")),
        {"role": "assistant", "content": "Fine."},
        {"role": "user", "content": "go on"},
        system(define(changed)),
    ]
    assert server.create(messages=later, tools=TOOLS, betas=[INLINE]).content[0].text == "ok"


def test_a_deferred_tool_is_added_by_reference_and_the_available_tools_are_recorded(api: Any) -> None:
    server = api()
    server.create(messages=[{"role": "user", "content": "hi"}], tools=TOOLS)
    assert server.server.recorded[-1].available_tools == ("Read",)  # Fetch is deferred
    server.create(
        messages=after_question(add(reference("Fetch")), remove("Read")), tools=TOOLS, betas=[BY_REFERENCE]
    )
    assert server.server.recorded[-1].available_tools == ("Fetch",)


def test_a_call_to_a_removed_tool_is_accepted(api: Any) -> None:
    """The API reads a removal as a hint: a model that still calls the tool gets its result back as usual."""
    server = api()
    messages = [
        *after_question(remove("Read")),
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a,b"}]},
    ]
    assert server.create(messages=messages, tools=TOOLS, betas=[INLINE]).content[0].text == "ok"
    assert server.server.recorded[-1].available_tools == ()


def test_no_tool_change_directly_after_a_paused_turn(api: Any) -> None:
    web_search = {"type": "web_search_20250305", "name": "web_search"}
    server = api(
        [
            Turn(blocks=[Text("Searching."), ServerToolUse(input={"query": "q"})], stop_reason="pause_turn"),
            *[Turn(blocks=[Text("ok")]) for _ in range(3)],
        ]
    )
    paused = server.create(tools=[READ, web_search])
    history = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [b.model_dump() for b in paused.content]},
    ]
    change = [*history, system(define(WRITE))]
    status, error = server.refused(messages=change, tools=[READ, web_search], betas=[INLINE])
    assert status == 400
    assert error["message"] == (
        "messages.2.content.0: `tool_addition` blocks are not accepted directly after a paused assistant turn "
        "(stop_reason `pause_turn`); send the paused turn back, then put the tool change after the next user message"
    )
    text = [*history, system({"type": "text", "text": "Prefer primary sources."})]
    assert server.create(messages=text, tools=[READ, web_search], betas=[INLINE]).content[0].text == "ok"


def test_after_a_paused_turn_that_ends_in_text_a_system_message_may_say_something_but_change_no_tool(
    api: Any,
) -> None:
    server = api(
        [Turn(blocks=[Text("Still searching.")], stop_reason="pause_turn"), Turn(blocks=[Text("ok")])]
    )
    paused = server.create(tools=TOOLS)
    history = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [b.model_dump() for b in paused.content]},
    ]
    text = [*history, system({"type": "text", "text": "Prefer primary sources."})]
    assert server.create(messages=text, tools=TOOLS, betas=[INLINE]).content[0].text == "ok"
    status, error = server.refused(messages=[*history, system(remove("Read"))], tools=TOOLS, betas=[INLINE])
    assert status == 400 and error["message"].startswith(
        "messages.2.content.0: `tool_removal` blocks are not accepted directly after a paused assistant turn"
    )


def test_cache_control_on_the_block_or_in_the_definition_not_both(api: Any) -> None:
    server = api()
    mark = {"cache_control": {"type": "ephemeral"}}
    both = define({**WRITE, **mark}, **mark)
    status, error = refused(server, after_question(both), [INLINE])
    assert (status, error["message"]) == (
        400,
        "messages.1.content.0: cache_control may be set on the `tool_addition` block or inside its definition, "
        "not both; remove one of them",
    )
    for one in (define({**WRITE, **mark}), define(WRITE, **mark)):
        assert (
            server.create(messages=after_question(one), tools=TOOLS, betas=[INLINE]).content[0].text == "ok"
        )


@pytest.mark.parametrize(
    ("definition", "message"),
    [
        (
            {**WRITE, "name": "write file"},
            "messages.1.content.0.tool.definition.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
        ),
        (
            {**WRITE, "input_schema": {"type": "string"}},
            "messages.1.content.0.tool.definition.custom.input_schema.type: Input should be 'object'",
        ),
        (
            {**WRITE, "defer_loading": True, "cache_control": {"type": "ephemeral"}},
            "messages.1.content.0.tool.definition.custom: a tool with defer_loading: true cannot carry cache_control",
        ),
        (
            {
                "type": "computer_20251124",
                "name": "computer",
                "display_width_px": 800,
                "display_height_px": 600,
            },
            "messages.1.content.0.tool.definition: tool type 'computer_20251124' cannot be defined inside a message; "
            "declare it in `tools`",
        ),
    ],
)
def test_a_definition_obeys_the_rules_of_a_tools_entry(
    api: Any, definition: dict[str, Any], message: str
) -> None:
    assert refused(api(), after_question(define(definition)), [INLINE]) == (
        400,
        {"type": INVALID, "message": message},
    )


def test_tools_defined_in_messages_past_4_mb_exceed_the_limit(api: Any) -> None:
    big = {**WRITE, "description": "x" * (4 * 1024 * 1024)}
    status, error = refused(api(), after_question(define(big)), [INLINE])
    assert (status, error["details"]) == (400, {"error_code": "available_tools_limit_exceeded"})
    assert error["message"].startswith(
        "messages.1.content.0.tool.definition: the tools defined in messages exceed"
    )


def test_more_than_10000_tools_defined_in_messages_exceed_the_limit(api: Any) -> None:
    definitions = [define({**WRITE, "name": f"T{n}"}) for n in range(10_001)]
    _, error = refused(api(), after_question(*definitions), [INLINE])
    assert error["details"] == {"error_code": "available_tools_limit_exceeded"}
    assert error["message"].startswith("messages.1.content.10000.tool.definition: ")


def test_other_blocks_in_a_system_message(api: Any) -> None:
    image = {"type": "image", "source": {"type": "url", "url": "https://example.org/a.png"}}
    _, error = refused(api(), after_question(image), [INLINE])
    assert error["message"] == (
        "messages.1.content.0: Input tag 'image' found using 'type' does not match any of the expected tags: "
        "'text', 'tool_addition', 'tool_removal'"
    )


def test_mcp_references_need_the_mcp_beta_and_a_declared_server(api: Any) -> None:
    server = api()
    block = add({"type": "mcp_toolset_reference", "server_name": "files"})
    _, error = refused(server, after_question(block), [INLINE])
    assert error["message"] == (
        "messages.1.content.0.tool: MCP references need the `mcp-client-2026-09-15` value in the `anthropic-beta` "
        "header"
    )
    _, error = refused(server, after_question(block), [INLINE, "mcp-client-2026-09-15"])
    assert error["details"] == {"error_code": "tool_reference_unresolved"}


def test_every_tool_deferred_is_refused(api: Any) -> None:
    assert api().rejection(tools=[FETCH]) == (
        400,
        INVALID,
        "tools: All tools have defer_loading: true. At least one tool must be loaded up front: leave "
        "`defer_loading` unset on one of them.",
    )


def thinking_turns(n: int = 4) -> list[Turn]:
    return [Turn(blocks=[Thinking(f"reasoning {i}"), Text(f"answer {i}")]) for i in range(n)]


def test_a_tool_change_appended_keeps_every_thinking_block_valid(api: Any) -> None:
    server = api(thinking_turns())
    messages: list[dict[str, Any]] = [{"role": "user", "content": "first"}]
    for change in (define(WRITE), remove("Write")):
        answer = server.create(messages=messages, tools=TOOLS, betas=[BINDING, INLINE])
        assert answer.input_transformations == []
        messages += [
            {"role": "assistant", "content": [b.model_dump() for b in answer.content]},
            {"role": "user", "content": "next"},
            system(change),
        ]
    assert server.create(messages=messages, tools=TOOLS, betas=[BINDING, INLINE]).input_transformations == []


def test_a_deferred_tool_appended_to_tools_keeps_the_thinking_and_another_tool_does_not(api: Any) -> None:
    """Docs: adding a tool with `defer_loading: true` that nothing has referenced yet is not an edit."""
    server = api([*thinking_turns(), Turn(blocks=[ToolUse(name="Read", input={})])])
    first = server.create(tools=TOOLS)
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [b.model_dump() for b in first.content]},
        {"role": "user", "content": "more"},
    ]
    grep = {"name": "Grep", "input_schema": {"type": "object"}, "defer_loading": True}
    tools = [*TOOLS, grep]
    assert server.create(messages=messages, tools=tools, betas=[BINDING]).input_transformations == []
    undeferred = [*TOOLS, {**grep, "defer_loading": False}]
    _, error = server.refused(messages=messages, tools=undeferred, betas=[BINDING])
    assert error["message"].startswith(
        "messages.1.content.0: Invalid `signature` in `thinking` block. The block"
    )
    assert error["message"].endswith("The `tools` list differs from the one this block was created with.")


def test_more_than_10000_deferred_tools_exceed_the_limit(api: Any) -> None:
    deferred = [{**FETCH, "name": f"F{n}"} for n in range(10_001)]
    status, error = api().refused(tools=[READ, *deferred])
    assert (status, error["details"]) == (400, {"error_code": "available_tools_limit_exceeded"})
    assert error["message"] == "tools: 10001 tools have defer_loading: true; at most 10000 are allowed"


def test_a_web_search_added_by_a_system_message_stays_declared_after_its_removal(api: Any) -> None:
    """A search the model ran after a `tool_addition` defined `web_search` may stay in the history when a later
    `tool_removal` stops offering it: the tool was declared in the conversation (docs/testing.md, "Where the docs
    are silent" 7), and `tools` itself must not change."""
    web_search = {"type": "web_search_20250305", "name": "web_search"}
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
    added = [{"role": "user", "content": "search"}, system(define(web_search))]
    answer = server.create(messages=added, tools=TOOLS, betas=[INLINE])
    history = [
        *added,
        {"role": "assistant", "content": [b.model_dump() for b in answer.content]},
        {"role": "user", "content": "thanks"},
        system(remove("web_search")),
    ]
    assert server.create(messages=history, tools=TOOLS, betas=[INLINE]).content[0].text == "ok"
