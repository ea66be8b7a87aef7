"""Thinking blocks the strict server signs are bound to their conversation, model and account, as the API binds them.

An append-only conversation keeps every block valid; an edit before a block is the API's 400 (or, with
`prefix_mismatch_behavior: "drop_block"`, a drop reported in `input_transformations`).
"""

from __future__ import annotations

from typing import Any

import anthropic
import pytest
from strict_kit import Api

from jupyter_agent.testing import ScriptedServer, Text, Thinking, ToolUse, Turn

INVALID = "invalid_request_error"
BETA = "thinking-binding-controls-2026-08-01"
BOUND = (
    "Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or "
    'set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block".'
)
NEEDS_BETA = (
    "That setting requires the `thinking-binding-controls-2026-08-01` value in the `anthropic-beta` header."
)
TOOLS = [{"name": "Read", "description": "Read a file.", "input_schema": {"type": "object"}}]
SYSTEM = "You are a notebook agent."
DROP = {"type": "adaptive", "block_binding": {"prefix_mismatch_behavior": "drop_block"}}


def thinking_turns(n: int = 6) -> list[Turn]:
    return [Turn(blocks=[Thinking(f"reasoning {i}"), Text(f"answer {i}")]) for i in range(n)]


class Conversation:
    """Messages grown the append-only way: each answer appended as returned, then the next user message."""

    def __init__(self, api: Api, **params: Any) -> None:
        self.api = api
        self.params = {"system": SYSTEM, "tools": TOOLS, **params}
        self.messages: list[dict[str, Any]] = [{"role": "user", "content": "first question"}]

    def ask(self, text: str | None = None, **params: Any) -> Any:
        message = self.api.create(messages=self.messages, **{**self.params, **params})
        self.messages.append({"role": "assistant", "content": [b.model_dump() for b in message.content]})
        if text is not None:
            self.messages.append({"role": "user", "content": text})
        return message


def test_an_append_only_conversation_keeps_every_thinking_block_valid(api: Any) -> None:
    chat = Conversation(api(thinking_turns()))
    for n in range(4):
        message = chat.ask(f"question {n + 2}")
        assert [b.type for b in message.content] == ["thinking", "text"]
    signatures = [m["content"][0]["signature"] for m in chat.messages if m["role"] == "assistant"]
    assert len(set(signatures)) == 4 and all(signatures)


def test_thinking_text_is_omitted_by_default_on_sonnet_5_5_and_summarized_on_request(api: Any) -> None:
    server = api(thinking_turns())
    assert server.create().content[0].thinking == ""
    summarized = server.create(thinking={"type": "adaptive", "display": "summarized"})
    assert summarized.content[0].thinking == "reasoning 1"
    assert (
        server.create(model="claude-sonnet-4-6").content[0].thinking == "reasoning 2"
    )  # its default: summarized


def test_the_scripted_signature_is_replaced_when_streamed_too(api: Any) -> None:
    server = api([Turn(blocks=[Thinking("t", signature="scripted-signature"), Text("ok")])])
    with server.client.messages.stream(
        model="claude-sonnet-5-5", max_tokens=100, messages=[{"role": "user", "content": "hi"}]
    ) as stream:
        events = [event.type for event in stream]
        message = stream.get_final_message()
    assert "signature" in events  # the SDK's event for a signature_delta
    block = message.content[0]
    assert block.type == "thinking" and block.thinking == ""
    assert block.signature not in ("", "scripted-signature")


def test_a_mode_change_told_as_an_appended_message_keeps_the_thinking(api: Any) -> None:
    server = api([Turn(blocks=[Thinking("plan"), ToolUse(name="Read", input={})]), *thinking_turns()])
    chat = Conversation(server)
    call = chat.ask()
    chat.messages.append(
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": call.content[1].id, "content": "file text"},
                {"type": "text", "text": "The permission mode is now plan."},
            ],
        }
    )
    assert chat.ask("go on", betas=[BETA]).input_transformations == []
    chat.messages.append({"role": "system", "content": "The permission mode is now acceptEdits."})
    assert chat.ask(betas=[BETA]).input_transformations == []


def test_moving_a_cache_breakpoint_is_not_an_edit(api: Any) -> None:
    chat = Conversation(api(thinking_turns()))
    chat.messages[0] = {
        "role": "user",
        "content": [{"type": "text", "text": "first question", "cache_control": {"type": "ephemeral"}}],
    }
    chat.ask("second")
    chat.messages[0] = {"role": "user", "content": "first question"}  # the breakpoint moves to the end
    chat.messages[-1] = {
        "role": "user",
        "content": [{"type": "text", "text": "second", "cache_control": {"type": "ephemeral"}}],
    }
    assert chat.ask(betas=[BETA]).input_transformations == []


def test_a_resumed_conversation_is_valid_on_a_new_server_in_the_same_process(api: Any) -> None:
    chat = Conversation(api(thinking_turns()))
    chat.ask("after the restart")
    chat.api = api(thinking_turns())  # the kernel restarted: a new server, the saved history
    assert chat.ask(betas=[BETA]).input_transformations == []


def test_blocks_signed_with_another_key_are_not_ours(api: Any) -> None:
    chat = Conversation(api(thinking_turns(), signing_key=b"another process"))
    chat.ask("next")
    chat.api = api(thinking_turns())
    assert chat.api.rejection(messages=chat.messages, **chat.params) == (
        400,
        INVALID,
        "messages.1.content.0: Invalid `signature` in `thinking` block",
    )


def edited(api: Any, change: str) -> tuple[Conversation, tuple[int, str, str]]:
    chat = Conversation(api(thinking_turns()))
    chat.ask("second")
    chat.ask("third")
    params = dict(chat.params)
    if change == "system":
        params["system"] = SYSTEM + " The kernel pid is 4242."
    elif change == "tools":
        params["tools"] = [*TOOLS, {"name": "WebSearch", "input_schema": {"type": "object"}}]
    elif change == "message":
        chat.messages[2] = {"role": "user", "content": "second, reworded"}
    return chat, chat.api.rejection(messages=chat.messages, **params)


def test_a_changed_system_prompt_is_the_apis_400_naming_the_first_block(api: Any) -> None:
    _, error = edited(api, "system")
    assert error == (
        400,
        INVALID,
        f"messages.1.content.0: {BOUND} {NEEDS_BETA} The `system` prompt differs from the one this block was "
        "created with.",
    )


def test_a_changed_tool_list_is_the_apis_400(api: Any) -> None:
    _, (status, kind, message) = edited(api, "tools")
    assert (status, kind) == (400, INVALID)
    assert (
        message
        == f"messages.1.content.0: {BOUND} {NEEDS_BETA} The `tools` list differs from the one this block was created with."
    )


def test_a_rewritten_earlier_message_invalidates_only_the_blocks_after_it(api: Any) -> None:
    _, (status, kind, message) = edited(api, "message")
    assert (status, kind) == (400, INVALID)
    # messages.1 came before the edit at messages.2 and stays valid; messages.3 is the first block after it.
    assert message.startswith(f"messages.3.content.0: {BOUND}")
    assert message.endswith("Content that preceded this block when it was created differs in this request.")


def test_drop_block_drops_the_invalid_blocks_and_reports_them(api: Any) -> None:
    chat, _ = edited(api, "message")
    message = chat.api.create(messages=chat.messages, betas=[BETA], thinking=DROP, **chat.params)
    assert [(t.type, t.path, t.reason) for t in message.input_transformations] == [
        ("thinking_dropped", "messages.3.content.0", "prefix_binding_mismatch")
    ]


def test_with_the_beta_header_the_400_does_not_ask_for_it(api: Any) -> None:
    chat, _ = edited(api, "message")
    params = {**chat.params, "system": SYSTEM + " changed"}
    message = chat.api.rejection(messages=chat.messages, betas=[BETA], **params)[2]
    assert message.startswith(f"messages.1.content.0: {BOUND} The `system` prompt differs")


def test_a_thinking_block_left_out_between_others_breaks_the_chain(api: Any) -> None:
    chat = Conversation(api(thinking_turns()))
    for text in ("second", "third", "fourth"):
        chat.ask(text)
    middle = chat.messages[3]["content"]
    chat.messages[3] = {"role": "assistant", "content": [b for b in middle if b["type"] != "thinking"]}
    status, kind, message = chat.api.rejection(messages=chat.messages, **chat.params)
    assert (status, kind) == (400, INVALID)
    assert message.startswith(f"messages.5.content.0: {BOUND}") and "missing or out of order" in message


def test_thinking_blocks_removed_from_the_start_or_all_of_them_is_allowed(api: Any) -> None:
    chat = Conversation(api(thinking_turns()))
    for text in ("second", "third"):
        chat.ask(text)
    first = chat.messages[1]["content"]
    chat.messages[1] = {"role": "assistant", "content": [b for b in first if b["type"] != "thinking"]}
    assert chat.ask("fourth", betas=[BETA]).input_transformations == []
    for n, message in enumerate(chat.messages):
        if message["role"] == "assistant":
            chat.messages[n] = {
                "role": "assistant",
                "content": [b for b in message["content"] if b["type"] != "thinking"],
            }
    assert chat.ask(betas=[BETA]).input_transformations == []


def test_a_tampered_or_empty_signature_is_always_a_400(api: Any) -> None:
    chat = Conversation(api(thinking_turns()))
    chat.ask("second")
    block = chat.messages[1]["content"][0]
    for signature in ("", block["signature"][:-4], "scripted-signature"):
        chat.messages[1]["content"][0] = {**block, "signature": signature}
        error = chat.api.rejection(messages=chat.messages, betas=[BETA], thinking=DROP, **chat.params)
        assert error == (400, INVALID, "messages.1.content.0: Invalid `signature` in `thinking` block")


def test_edited_thinking_text_in_the_latest_assistant_turn(api: Any) -> None:
    server = api([Turn(blocks=[Thinking("plan"), ToolUse(name="Read", input={})]), *thinking_turns()])
    chat = Conversation(server, thinking={"type": "adaptive", "display": "summarized"})
    call = chat.ask()
    chat.messages[1]["content"][0]["thinking"] = "a different plan"
    chat.messages.append(
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.content[1].id}]}
    )
    assert chat.api.rejection(messages=chat.messages, **chat.params) == (
        400,
        INVALID,
        "messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be "
        "modified. These blocks must remain as they were in the original response.",
    )


def test_text_put_into_an_omitted_block_is_ignored(api: Any) -> None:
    chat = Conversation(api(thinking_turns()))
    chat.ask("second")
    chat.messages[1]["content"][0]["thinking"] = "made up"
    assert chat.ask(betas=[BETA]).input_transformations == []


def test_a_model_that_cannot_read_the_blocks_drops_them_without_an_error(api: Any) -> None:
    chat = Conversation(api(thinking_turns()))
    chat.ask("now on another model")
    message = chat.ask(model="claude-haiku-5-5", betas=[BETA])  # Haiku 5.5 does not read Sonnet 5.5's blocks
    assert [(t.path, t.reason) for t in message.input_transformations] == [
        ("messages.1.content.0", "model_binding_mismatch")
    ]
    chat.messages.append({"role": "user", "content": "and Opus"})
    assert chat.ask(model="claude-opus-5-5", betas=[BETA]).input_transformations == []  # Opus 5.5 reads both


def test_another_account_drops_sonnet_5_5_blocks(api: Any) -> None:
    chat = Conversation(api(thinking_turns()))
    chat.ask("now with another key")
    chat.api = chat.api.with_key("sk-ant-another-account")
    message = chat.ask(betas=[BETA])
    assert [(t.path, t.reason) for t in message.input_transformations] == [
        ("messages.1.content.0", "organization_binding_mismatch")
    ]


def test_blocks_of_a_model_that_is_not_account_bound_work_under_another_key(api: Any) -> None:
    chat = Conversation(api(thinking_turns()), model="claude-opus-5-5")
    chat.ask("now with another key")
    chat.api = chat.api.with_key("sk-ant-another-account")
    assert chat.ask(betas=[BETA]).input_transformations == []


def test_between_tools_progress_updates_come_back_with_their_text(api: Any) -> None:
    message = api(thinking_turns()).create(thinking={"type": "between_tools"})
    assert message.content[0].thinking == "reasoning 0"


def test_a_model_without_preserved_thinking_runs_no_prefix_check(api: Any) -> None:
    chat = Conversation(api(thinking_turns()), model="claude-opus-5")
    chat.ask("next")
    assert chat.ask(system=SYSTEM + " changed", betas=[BETA]).input_transformations == []


def test_count_tokens_runs_the_same_prefix_check(api: Any) -> None:
    chat, _ = edited(api, "system")
    server: ScriptedServer = chat.api.server
    with pytest.raises(anthropic.BadRequestError, match="bound to a different conversation"):
        chat.api.count_tokens(messages=chat.messages, system=SYSTEM + " The kernel pid is 4242.", tools=TOOLS)
    assert server.recorded[-1].path == "/v1/messages/count_tokens"
