"""The model's sink: every request is masked with the secrets known when it is sent, not when its parts were made."""

from __future__ import annotations

import json
from typing import Any

import pytest

from jupyter_agent.agent.config import AgentConfig
from jupyter_agent.agent.conversation import Conversation
from jupyter_agent.agent.prefix import Prefix
from jupyter_agent.agent.request_body import encoded_body, masked_request
from jupyter_agent.agent.thinking import ThinkingPlan
from jupyter_agent.agent.turn import request_params
from jupyter_agent.masking import REGISTRY
from jupyter_agent.tools import ToolResult

LATE_SECRET = "zq7-late-secret-4c91b2e0aa"


def _conversation_that_read(value: str) -> Conversation:
    conversation = Conversation()
    conversation.add_user_text("read config.txt")
    conversation.add_assistant(
        [
            {"type": "thinking", "thinking": "read it", "signature": "c2lnbmF0dXJl" * 4},
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "config.txt"}},
        ]
    )
    conversation.add_tool_results([("t1", ToolResult.ok(f"token = {value}\n"))])
    return conversation


def _body(conversation: Conversation) -> bytes:
    params = {
        "model": "claude-sonnet-5-5",
        "max_tokens": 64,
        "messages": conversation.request_messages(cache=True),
    }
    body = encoded_body({**params, "stream": True}, REGISTRY.scanner())
    assert body is not None
    return body


def test_a_value_that_becomes_a_secret_after_it_was_stored_is_masked_in_every_later_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    conversation = _conversation_that_read(LATE_SECRET)
    assert LATE_SECRET.encode() in _body(conversation)  # not a secret yet: sent as read
    monkeypatch.setenv("NEW_TOKEN", LATE_SECRET)
    conversation.add_user_text("go on")
    body = _body(conversation)
    assert LATE_SECRET[:8].encode() not in body and LATE_SECRET[-8:].encode() not in body
    assert b"[redacted: NEW_TOKEN]" in body
    json.loads(body)  # still a valid request


def test_opaque_values_are_never_masked() -> None:
    scanner = REGISTRY.scanner()
    signature = "c2lnbmF0dXJl" * 4
    request = masked_request(
        scanner,
        {
            "messages": [
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "", "signature": signature},
                        {"type": "redacted_thinking", "data": "b3BhcXVl" * 8},
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "image",
                            "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"},
                        }
                    ],
                },
            ],
            "betas": ["a-beta"],
        },
    )
    assistant, user = request["messages"]
    assert assistant["content"][0]["signature"] == signature
    assert assistant["content"][1]["data"] == "b3BhcXVl" * 8
    assert user["content"][0]["source"]["data"] == "iVBOR"


def test_a_request_the_sdk_encodes_is_masked_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEW_TOKEN", LATE_SECRET)
    conversation = _conversation_that_read(LATE_SECRET)
    request = masked_request(
        REGISTRY.scanner(), {"messages": list(conversation.request_messages(cache=False))}
    )
    assert LATE_SECRET[:8] not in json.dumps(request)


def _params(conversation: Conversation, model: str) -> dict[str, Any]:
    config = AgentConfig(model=model, prompt_caching=True)
    return request_params(
        config=config,
        plan=ThinkingPlan(thinking={"type": "adaptive"}, effort=None, max_tokens=1024),
        conversation=conversation,
    )


@pytest.mark.parametrize("model", ["claude-sonnet-5-5"])
def test_a_secret_known_after_a_message_was_sent_lets_the_api_drop_the_thinking_it_invalidates(
    monkeypatch: pytest.MonkeyPatch, model: str
) -> None:
    conversation = _conversation_that_read(LATE_SECRET)
    conversation.add_assistant(
        [{"type": "thinking", "thinking": "", "signature": "Ym91bmQ=" * 4}, {"type": "text", "text": "done"}]
    )
    conversation.fix_prefix(Prefix(system="system", tools=()))
    first = _params(conversation, model)
    assert "block_binding" not in json.dumps(first.get("thinking"))
    monkeypatch.setenv("NEW_TOKEN", LATE_SECRET)
    conversation.add_user_text("go on")
    later = _params(conversation, model)
    assert later["thinking"]["block_binding"] == {"prefix_mismatch_behavior": "drop_block"}
    assert conversation.told.binding == "drop_block"


def test_nothing_sent_changes_while_the_secrets_stay_the_same() -> None:
    conversation = _conversation_that_read("an ordinary value")
    _body(conversation)
    conversation.add_user_text("go on")
    assert conversation.request_messages(cache=False).remasked_sent is False
