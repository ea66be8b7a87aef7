"""The latest assistant turn keeps its thinking as produced, consecutive messages of one role are one turn, and the
chain of thinking blocks allows removals only from the start or the end (docs "Extended thinking", "Preserved
thinking"; docs/testing.md "Where the docs are silent" 10)."""

from __future__ import annotations

from typing import Any

from strict_kit import Api

from jupyter_agent.testing import SearchHit, ServerToolUse, Text, Thinking, ToolUse, Turn, WebSearchResult

INVALID = "invalid_request_error"
BINDING = "thinking-binding-controls-2026-08-01"
MODIFIED = (
    "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must "
    "remain as they were in the original response."
)
BOUND = "Invalid `signature` in `thinking` block. The block is bound to a different conversation."
READ = {"name": "Read", "description": "Read a file.", "input_schema": {"type": "object"}}
WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search"}
DROP = {"type": "adaptive", "block_binding": {"prefix_mismatch_behavior": "drop_block"}}


def dumped(message: Any) -> list[dict[str, Any]]:
    return [b.model_dump() for b in message.content]


def two_thoughts_then_a_call(api: Any) -> tuple[Api, list[dict[str, Any]]]:
    """A response of two consecutive thinking blocks and a tool call; the blocks as returned."""
    server = api(
        [
            Turn(blocks=[Thinking("first"), Thinking("second"), ToolUse(name="Read", input={})]),
            Turn(blocks=[Text("ok")]),
        ]
    )
    return server, dumped(server.create(tools=[READ]))


def continuing(blocks: list[dict[str, Any]], call_id: str) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": blocks},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": "data"}]},
    ]


def test_the_latest_turns_thinking_blocks_sent_back_as_produced_are_accepted(api: Any) -> None:
    server, blocks = two_thoughts_then_a_call(api)
    assert server.create(messages=continuing(blocks, blocks[2]["id"]), tools=[READ]).content[0].text == "ok"


def test_reordered_thinking_in_the_latest_turn_cannot_be_modified(api: Any) -> None:
    server, (first, second, call) = two_thoughts_then_a_call(api)
    messages = continuing([second, first, call], call["id"])
    assert server.rejection(messages=messages, tools=[READ]) == (
        400,
        INVALID,
        f"messages.1.content.0: {MODIFIED}",
    )


def test_partly_dropped_thinking_in_the_latest_turn_cannot_be_modified(api: Any) -> None:
    server, (first, second, call) = two_thoughts_then_a_call(api)
    for kept in ([first, call], [second, call]):
        messages = continuing(kept, call["id"])
        assert server.rejection(messages=messages, tools=[READ]) == (
            400,
            INVALID,
            f"messages.1.content.0: {MODIFIED}",
        )


def test_drop_block_does_not_drop_a_modified_latest_turn(api: Any) -> None:
    server, (first, _, call) = two_thoughts_then_a_call(api)
    messages = continuing([first, call], call["id"])
    error = server.rejection(messages=messages, tools=[READ], thinking=DROP, betas=[BINDING])
    assert error == (400, INVALID, f"messages.1.content.0: {MODIFIED}")


def test_all_thinking_of_the_latest_turn_left_out_is_accepted(api: Any) -> None:
    """Removing every thinking block from the end is allowed (the model loses that reasoning)."""
    server, (_, _, call) = two_thoughts_then_a_call(api)
    assert server.create(messages=continuing([call], call["id"]), tools=[READ]).content[0].text == "ok"


def chat_of(api: Any, answers: int) -> tuple[Api, list[dict[str, Any]]]:
    """A conversation of `answers` thinking answers, each followed by a user message."""
    server = api([Turn(blocks=[Thinking(f"t{n}"), Text(f"a{n}")]) for n in range(answers + 3)])
    messages: list[dict[str, Any]] = [{"role": "user", "content": "q0"}]
    for n in range(answers):
        answer = server.create(messages=messages)
        messages += [
            {"role": "assistant", "content": dumped(answer)},
            {"role": "user", "content": f"q{n + 1}"},
        ]
    return server, messages


def without_thinking(message: dict[str, Any]) -> dict[str, Any]:
    return {**message, "content": [b for b in message["content"] if b["type"] != "thinking"]}


def test_a_gap_invalidates_every_thinking_block_after_it(api: Any) -> None:
    server, messages = chat_of(api, 4)  # thinking at messages 1, 3, 5, 7
    messages[3] = without_thinking(messages[3])
    answer = server.create(messages=messages, thinking=DROP, betas=[BINDING])
    assert [(t.path, t.reason) for t in answer.input_transformations] == [
        ("messages.5.content.0", "prefix_binding_mismatch"),
        ("messages.7.content.0", "prefix_binding_mismatch"),
    ]


def test_blocks_produced_after_a_removal_stay_valid_and_putting_it_back_invalidates_them(api: Any) -> None:
    server, messages = chat_of(api, 2)  # thinking at messages 1 and 3
    kept = messages[3]
    messages[3] = without_thinking(kept)
    answer = server.create(messages=messages, betas=[BINDING])  # removed from the end: allowed
    assert answer.input_transformations == []
    messages += [{"role": "assistant", "content": dumped(answer)}, {"role": "user", "content": "q3"}]
    assert server.create(messages=messages, betas=[BINDING]).input_transformations == []
    messages[3] = kept  # put back: the block produced while it was gone (messages.5) is invalid
    status, kind, message = server.rejection(messages=messages, betas=[BINDING])
    assert (status, kind) == (400, INVALID)
    assert message.startswith(f"messages.5.content.0: {BOUND}") and "missing or out of order" in message


def test_thinking_removed_from_the_start_keeps_the_rest_valid(api: Any) -> None:
    server, messages = chat_of(api, 3)
    messages[1] = without_thinking(messages[1])
    messages[3] = without_thinking(messages[3])
    assert server.create(messages=messages, betas=[BINDING]).input_transformations == []


def paused_then_continued(api: Any) -> tuple[Api, list[dict[str, Any]], list[dict[str, Any]]]:
    """A turn the server paused (A) and its continuation (B, with thinking), as the client received them."""
    server = api(
        [
            Turn(
                blocks=[
                    Thinking("plan"),
                    Text("Searching."),
                    ServerToolUse(id="srvtoolu_1", input={"query": "q"}),
                ],
                stop_reason="pause_turn",
            ),
            Turn(
                blocks=[
                    WebSearchResult(
                        tool_use_id="srvtoolu_1", results=[SearchHit("Page", "https://example.org")]
                    ),
                    Thinking("found it"),
                    Text("Here it is."),
                ]
            ),
            *[Turn(blocks=[Text("ok")]) for _ in range(3)],
        ]
    )
    question = {"role": "user", "content": "search"}
    paused = dumped(
        server.create(
            messages=[question], tools=[WEB_SEARCH], thinking={"type": "adaptive", "display": "summarized"}
        )
    )
    rest = dumped(
        server.create(
            messages=[question, {"role": "assistant", "content": paused}],
            tools=[WEB_SEARCH],
            thinking={"type": "adaptive", "display": "summarized"},
        )
    )
    return server, paused, rest


def test_a_continuation_appended_to_the_paused_message_keeps_its_thinking(api: Any) -> None:
    server, paused, rest = paused_then_continued(api)
    messages = [
        {"role": "user", "content": "search"},
        {"role": "assistant", "content": [*paused, *rest]},
        {"role": "user", "content": "thanks"},
    ]
    answer = server.create(messages=messages, tools=[WEB_SEARCH], betas=[BINDING])
    assert answer.input_transformations == []


def test_a_continuation_sent_as_a_message_of_its_own_is_the_same_turn(api: Any) -> None:
    server, paused, rest = paused_then_continued(api)
    messages = [
        {"role": "user", "content": "search"},
        {"role": "assistant", "content": paused},
        {"role": "assistant", "content": rest},
        {"role": "user", "content": "thanks"},
    ]
    assert server.create(messages=messages, tools=[WEB_SEARCH], betas=[BINDING]).input_transformations == []
    # Both messages are the latest assistant turn: edited text in the paused part is "cannot be modified".
    messages[1] = {"role": "assistant", "content": [{**paused[0], "thinking": "another plan"}, *paused[1:]]}
    assert server.rejection(messages=messages, tools=[WEB_SEARCH]) == (
        400,
        INVALID,
        f"messages.1.content.0: {MODIFIED}",
    )


def test_a_turn_paused_twice_is_continued_in_either_spelling_and_a_made_up_tail_is_a_prefill(
    api: Any,
) -> None:
    searching = [
        WebSearchResult(tool_use_id="srvtoolu_1", results=[SearchHit("Page", "https://example.org")]),
        Text("Looking further."),
        ServerToolUse(id="srvtoolu_2", input={"query": "more"}),
    ]
    server = api(
        [
            Turn(
                blocks=[Text("Searching."), ServerToolUse(id="srvtoolu_1", input={})],
                stop_reason="pause_turn",
            ),
            Turn(blocks=searching, stop_reason="pause_turn"),
            *[Turn(blocks=[Text("ok")]) for _ in range(3)],
        ]
    )
    question = {"role": "user", "content": "search"}
    first = dumped(server.create(messages=[question], tools=[WEB_SEARCH]))
    second = dumped(
        server.create(messages=[question, {"role": "assistant", "content": first}], tools=[WEB_SEARCH])
    )
    for spelling in (
        [{"role": "assistant", "content": first}, {"role": "assistant", "content": second}],
        [{"role": "assistant", "content": [*first, *second]}],
    ):
        assert server.create(messages=[question, *spelling], tools=[WEB_SEARCH]).content[0].text == "ok"
    made_up = [
        {"role": "assistant", "content": [*first, *second]},
        {"role": "assistant", "content": "So far:"},
    ]
    assert server.rejection(messages=[question, *made_up], tools=[WEB_SEARCH]) == (
        400,
        INVALID,
        "This model does not support assistant message prefill. The conversation must end with a user message.",
    )


def test_a_tool_call_answered_after_consecutive_assistant_messages(api: Any) -> None:
    call = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}
    messages = [
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": [call]},
        {"role": "assistant", "content": [{"type": "text", "text": "Reading."}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a"}]},
        {"role": "user", "content": "and then?"},
    ]
    assert api().create(messages=messages, tools=[READ]).content[0].text == "ok"


def test_parallel_results_split_over_consecutive_user_messages(api: Any) -> None:
    calls = [{"type": "tool_use", "id": f"toolu_{n}", "name": "Read", "input": {}} for n in (1, 2)]
    messages = [
        {"role": "user", "content": "read both"},
        {"role": "assistant", "content": calls},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a"}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "b"}]},
    ]
    assert api().create(messages=messages, tools=[READ]).content[0].text == "ok"


def test_manual_thinking_reads_the_joined_turn(api: Any) -> None:
    server = api([Turn(blocks=[Thinking("look"), ToolUse(name="Read", input={})]), Turn(blocks=[Text("ok")])])
    thinking = {"type": "enabled", "budget_tokens": 2048}
    params: dict[str, Any] = {
        "model": "claude-haiku-4-5",
        "thinking": thinking,
        "max_tokens": 4096,
        "tools": [READ],
    }
    thought, call = dumped(server.create(**params))
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [thought]},
        {"role": "assistant", "content": [call]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call["id"], "content": "x"}]},
    ]
    assert server.create(messages=messages, **params).content[0].text == "ok"


def test_a_latest_turn_that_ends_in_part_of_a_thinking_run_cannot_be_modified(api: Any) -> None:
    server = api(
        [Turn(blocks=[Thinking("a"), Thinking("b")], stop_reason="max_tokens"), Turn(blocks=[Text("ok")])]
    )
    first, _ = dumped(server.create())
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [first]},
        {"role": "user", "content": "go on"},
    ]
    assert server.rejection(messages=messages) == (400, INVALID, f"messages.1.content.0: {MODIFIED}")
