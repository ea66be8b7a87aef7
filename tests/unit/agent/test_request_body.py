"""A request's body is the JSON the SDK would send, and each stored message is encoded once, not per request."""

from __future__ import annotations

import asyncio
import importlib
import json
import warnings
from collections.abc import Callable
from typing import Any

import anthropic._base_client as sdk_base_client
import pytest
from agent_testkit import HarnessFactory
from anthropic._utils._json import openapi_dumps  # the SDK's own encoder: the bytes it would send

from jupyter_agent.agent import message_store
from jupyter_agent.agent.client import ModelClient, without_unsupported
from jupyter_agent.agent.config import AgentConfig
from jupyter_agent.agent.conversation import Conversation
from jupyter_agent.agent.request_body import EncodedMessages, encoded_body
from jupyter_agent.masking import REGISTRY
from jupyter_agent.testing import TEST_API_KEY, ScriptedServer, Text, ToolUse, Turn
from jupyter_agent.tools import ToolResult


def _tool_use(call_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": "Read", "input": {"file_path": "é.txt"}}


def _body(conversation: Conversation, *, cache: bool = True) -> bytes:
    params = {
        "model": "claude-sonnet-5-5",
        "max_tokens": 64,
        "messages": conversation.request_messages(cache=cache),
    }
    body = encoded_body({**params, "betas": ["a-beta"], "stream": True}, REGISTRY.scanner())
    assert body is not None
    messages = openapi_dumps(list(params["messages"]))
    assert body.endswith(b'"messages":' + messages + b"}")  # the SDK's bytes for them
    assert json.loads(body) == json.loads(openapi_dumps({**params, "stream": True}))
    return body


def _thinking(text: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": text, "signature": "sig"}


#: What changes a conversation's stored messages: each must be in the next body.
CHANGES: list[tuple[str, Callable[[Conversation], object]]] = [
    ("a request", lambda c: c.add_user_text("next ünïcode")),
    (
        "an update before the request",
        lambda c: c.add_update([{"type": "text", "text": "[Update] mode: plan"}]),
    ),
    ("a system message", lambda c: c.add_system([{"type": "text", "text": "tool_addition"}])),
    ("a repair", lambda c: (c.add_assistant([_tool_use("z")]), c.add_user_text("go on"), c.repair())),
    ("shortened results", lambda c: c.shorten_old_results(target_chars=0)),
    ("thinking left out", lambda c: c.strip_thinking()),
    ("a rewind", lambda c: c.truncate((3, 1))),
    ("a take-back", lambda c: c.take_back((5, 0))),
    ("a compaction's summary", lambda c: c.replace([{"role": "user", "content": "the summary so far"}])),
]


@pytest.mark.parametrize("change", [c for _, c in CHANGES], ids=[name for name, _ in CHANGES])
@pytest.mark.parametrize("cache", [True, False], ids=["cached", "uncached"])
def test_after_each_change_the_body_is_what_the_sdk_would_send(
    change: Callable[[Conversation], object], cache: bool
) -> None:
    conversation = Conversation()
    conversation.add_user_text("read it")
    for call_id in ("a", "b"):
        conversation.add_assistant([_thinking(f"t{call_id}"), _tool_use(call_id)])
        conversation.add_tool_results([(call_id, ToolResult.ok(call_id * 2000))])
    _body(conversation, cache=cache)  # every message encoded and kept
    change(conversation)
    sent = json.loads(_body(conversation, cache=cache))
    assert sent["messages"] == json.loads(json.dumps(conversation.request_messages(cache=cache)))


def test_a_message_is_encoded_once_however_many_requests_send_it(monkeypatch: pytest.MonkeyPatch) -> None:
    encoded: list[Any] = []
    real = message_store.encode

    def counting(value: Any) -> str:
        encoded.append(value)
        return real(value)

    monkeypatch.setattr(message_store, "encode", counting)
    conversation = Conversation()
    conversation.add_user_text("start")
    for n in range(20):
        conversation.add_assistant([_tool_use(f"c{n}")])
        conversation.add_tool_results([(f"c{n}", ToolResult.ok("x" * 100))])
        _body(conversation)
    # 41 messages in all, each kept as encoded the first time a request sent it (the tail's copy with its cache
    # breakpoint is the request's own)
    assert len(encoded) == 41
    assert [m["content"][0].get("id") or m["content"][0].get("tool_use_id") for m in encoded[-2:]] == [
        "c19",
        "c19",
    ]


def test_a_request_changed_after_the_conversation_made_it_is_encoded_by_the_sdk() -> None:
    conversation = Conversation()
    conversation.add_user_text("hi")
    params = {
        "model": "claude-sonnet-5-5",
        "max_tokens": 8,
        "messages": conversation.request_messages(cache=True),
    }
    assert isinstance(params["messages"], EncodedMessages)
    without_cache = without_unsupported(params, {"cache_control"})
    assert encoded_body(without_cache, REGISTRY.scanner()) is None  # its own messages, no stale text
    assert (
        encoded_body(without_unsupported(params, {"thinking"}), REGISTRY.scanner()) is not None
    )  # the same messages


def test_the_sdk_sends_the_encoded_body_without_walking_the_conversation(
    harness: HarnessFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    walked: list[object] = []
    prepare = getattr(sdk_base_client, "async_prepare_request_data")  # noqa: B009 (not exported)

    async def watching(data: object, **kw: Any) -> Any:
        walked.append(data)
        return await prepare(data, **kw)

    monkeypatch.setattr(sdk_base_client, "async_prepare_request_data", watching)
    h = harness(
        [
            Turn(blocks=[ToolUse(name="TodoWrite", input={"todos": []})]),
            Turn(blocks=[Text("one")]),
            Turn(blocks=[Text("two")]),
        ],
        model="claude-sonnet-5-5",
    )
    h.run("first")
    h.run("second")
    assert [r.refusal for r in h.server.recorded] == [None, None, None]
    assert not [
        d for d in walked if isinstance(d, dict) and "messages" in d
    ]  # the SDK copied no conversation
    for recorded in h.server.recorded:  # the beta endpoint, as messages.create would call it
        assert recorded.path == "/v1/messages?beta=true"
        assert "thinking-binding-controls-2026-08-01" in recorded.headers["anthropic-beta"]
    assert [m["role"] for m in h.server.recorded[-1].body["messages"]] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]


def _sdk_table(name: str) -> Any:
    return getattr(importlib.import_module("anthropic.resources.messages.messages"), name)


@pytest.mark.parametrize(
    ("model", "thinking"),
    [
        (next(iter(_sdk_table("DEPRECATED_MODELS"))), None),
        (
            next(iter(_sdk_table("MODELS_TO_WARN_WITH_THINKING_ENABLED"))),
            {"type": "enabled", "budget_tokens": 1024},
        ),
    ],
    ids=["a deprecated model", "budget thinking the SDK warns about"],
)
def test_an_encoded_request_warns_as_messages_create_does(model: str, thinking: Any) -> None:
    async def warned(messages: list[dict[str, Any]], url: str) -> list[tuple[type[Warning], str]]:
        client = ModelClient()
        params: dict[str, Any] = {"model": model, "max_tokens": 2048, "messages": messages}
        if thinking is not None:
            params["thinking"] = thinking
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                async with client.stream(AgentConfig(base_url=url, api_key=TEST_API_KEY), params) as events:
                    async for _ in events:
                        pass
        finally:
            await client.close()
        return [(w.category, str(w.message)) for w in caught if "jupyter_agent" not in str(w.message)]

    conversation = Conversation()
    conversation.add_user_text("hi")
    with ScriptedServer([Turn(blocks=[Text("a")]), Turn(blocks=[Text("b")])], strict=False) as server:
        encoded = asyncio.run(warned(conversation.request_messages(cache=False), server.url))
        by_create = asyncio.run(warned(list(conversation.request_messages(cache=False)), server.url))
    assert by_create  # the SDK warns about this request
    assert encoded == by_create
