"""The conversation stays a valid Messages API history whatever is appended, repaired or shortened."""

from __future__ import annotations

from agent_testkit import assert_valid_request

from jupyter_agent.agent.conversation import Conversation
from jupyter_agent.agent.shortening import shortened_text
from jupyter_agent.agent.stream import parse_tool_input
from jupyter_agent.tools import ToolResult


def _tool_use(call_id: str) -> dict[str, object]:
    return {"type": "tool_use", "id": call_id, "name": "Read", "input": {}}


def test_two_user_texts_in_a_row_become_one_message() -> None:
    conversation = Conversation()
    conversation.add_user_text("first")
    conversation.add_user_text("second")
    assert conversation.messages == [
        {"role": "user", "content": [{"type": "text", "text": "first"}, {"type": "text", "text": "second"}]}
    ]


def test_empty_text_blocks_are_never_stored() -> None:
    conversation = Conversation()
    conversation.add_user_text("hi")
    conversation.add_assistant([{"type": "text", "text": ""}])
    assert len(conversation) == 1


def test_repair_answers_a_tool_use_left_without_a_result() -> None:
    conversation = Conversation()
    conversation.add_user_text("read")
    conversation.add_assistant([_tool_use("a"), _tool_use("b")])
    conversation.add_tool_results([("a", ToolResult.ok("done"))])
    conversation.add_user_text("next")
    assert conversation.unanswered_tool_uses() == [(1, "b")]
    assert conversation.repair() == 1
    last = conversation.messages[-1]["content"]
    assert [b.get("tool_use_id") or b["text"] for b in last] == ["a", "b", "next"]
    assert last[1]["content"][0]["text"].startswith("INTERRUPTED: interrupted by the user")
    assert_valid_request({"messages": conversation.messages})


def test_repair_adds_a_user_message_after_a_trailing_tool_use() -> None:
    conversation = Conversation()
    conversation.add_user_text("read")
    conversation.add_assistant([_tool_use("a")])
    conversation.repair()
    assert_valid_request({"messages": conversation.messages})


def test_the_request_tail_gets_a_cache_breakpoint_but_the_stored_message_does_not() -> None:
    conversation = Conversation()
    conversation.add_user_text("hi")
    request = conversation.request_messages(cache=True)
    assert request[0]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in conversation.messages[0]["content"][-1]


def test_shortening_keeps_the_newest_results_and_says_what_was_removed() -> None:
    conversation = Conversation()
    conversation.add_user_text("read")
    for call_id in ("a", "b"):
        conversation.add_assistant([_tool_use(call_id)])
        conversation.add_tool_results([(call_id, ToolResult.ok(call_id * 5000))])
    before = conversation.chars()
    assert conversation.shorten_old_results(target_chars=0) == 1
    assert conversation.chars() < before - 4000
    old = conversation.messages[2]["content"][0]["content"][0]["text"]
    assert old == shortened_text("a" * 5000)
    assert old.startswith("[older tool result shortened to save context: 4700 characters removed; ")
    assert conversation.messages[4]["content"][0]["content"][0]["text"] == "b" * 5000
    assert conversation.shorten_old_results(target_chars=0) == 0  # a stub is not shortened again


def test_the_estimate_follows_the_real_prompt_size_plus_what_was_added() -> None:
    conversation = Conversation()
    conversation.add_user_text("x" * 400)
    assert conversation.estimated_prompt_tokens(0) == 102
    conversation.note_prompt_size(5000)
    conversation.add_user_text("y" * 400)
    assert conversation.estimated_prompt_tokens(0) == 5100


def test_tool_json_is_parsed_once_and_bad_json_is_explained() -> None:
    assert parse_tool_input('{"a": 1}') == ({"a": 1}, None)
    assert parse_tool_input("") == ({}, None)
    value, error = parse_tool_input('{"a": ')
    assert value == {}
    assert error == (
        'the arguments were not valid JSON (Expecting value at character 6): {"a": ; '
        "send them again as one complete JSON object"
    )
