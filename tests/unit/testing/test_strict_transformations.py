"""`input_transformations` lists the thinking blocks the server dropped, under the binding beta only, on the
non-streaming body and on `message_start`, in the shape the real `anthropic` SDK's beta types parse."""

from __future__ import annotations

import json
from typing import Any

from anthropic.types.beta import BetaRawMessageStartEvent, BetaThinkingDroppedInputTransformation
from strict_kit import MODEL, Api

from jupyter_agent.testing import Text, Thinking, Turn

BINDING = "thinking-binding-controls-2026-08-01"
DROP: Any = {"type": "adaptive", "block_binding": {"prefix_mismatch_behavior": "drop_block"}}
SYSTEM = "You are a notebook agent."


def edited_history(api: Any) -> tuple[Api, list[Any]]:
    """Three thinking answers, then the second user message reworded: the blocks at 3 and 5 fail the prefix check."""
    server = api([Turn(blocks=[Thinking(f"t{n}"), Text(f"a{n}")]) for n in range(6)])
    messages: list[Any] = [{"role": "user", "content": "q0"}]
    for n in range(3):
        answer = server.create(system=SYSTEM, messages=messages)
        messages += [
            {"role": "assistant", "content": [b.model_dump() for b in answer.content]},
            {"role": "user", "content": f"q{n + 1}"},
        ]
    messages[2] = {"role": "user", "content": "q1, reworded"}
    return server, messages


EXPECTED = [
    ("thinking_dropped", "messages.3.content.0", "prefix_binding_mismatch"),
    ("thinking_dropped", "messages.5.content.0", "prefix_binding_mismatch"),
]


def entries(transformations: Any) -> list[tuple[str, str, str]]:
    assert all(isinstance(t, BetaThinkingDroppedInputTransformation) for t in transformations)
    return [(t.type, t.path, t.reason) for t in transformations]


def test_drop_block_lists_the_dropped_blocks_on_the_body(api: Any) -> None:
    server, messages = edited_history(api)
    answer = server.client.beta.messages.create(
        model=MODEL, max_tokens=1000, system=SYSTEM, messages=messages, thinking=DROP, betas=[BINDING]
    )
    assert entries(answer.input_transformations) == EXPECTED


def test_drop_block_lists_the_dropped_blocks_on_message_start(api: Any) -> None:
    server, messages = edited_history(api)
    with server.client.beta.messages.stream(
        model=MODEL, max_tokens=1000, system=SYSTEM, messages=messages, thinking=DROP, betas=[BINDING]
    ) as stream:
        events = list(stream)
        final = stream.get_final_message()
    start = events[0]
    assert isinstance(start, BetaRawMessageStartEvent)
    assert entries(start.message.input_transformations) == EXPECTED
    assert entries(final.input_transformations) == EXPECTED


def test_the_dropped_blocks_count_for_nothing_in_the_input(api: Any) -> None:
    server, messages = edited_history(api)
    request: dict[str, Any] = {"model": MODEL, "system": SYSTEM, "messages": messages}
    dropped = server.client.beta.messages.create(max_tokens=1000, thinking=DROP, betas=[BINDING], **request)
    usage = dropped.usage
    billed = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens
    stripped: list[Any] = [
        {**m, "content": [b for b in m["content"] if b["type"] != "thinking"]} if n in (3, 5) else m
        for n, m in enumerate(messages)
    ]
    assert (
        billed
        == server.client.messages.count_tokens(model=MODEL, system=SYSTEM, messages=stripped).input_tokens
    )


def test_a_model_switch_lists_the_blocks_the_new_model_cannot_read(api: Any) -> None:
    server = api([Turn(blocks=[Thinking("t"), Text("a")]) for _ in range(3)])
    first = server.create()
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [b.model_dump() for b in first.content]},
        {"role": "user", "content": "and on Haiku?"},
    ]
    body: Any = {"model": "claude-haiku-5-5", "max_tokens": 1000, "messages": messages}
    answer = server.client.beta.messages.create(betas=[BINDING], **body)
    assert entries(answer.input_transformations) == [
        ("thinking_dropped", "messages.1.content.0", "model_binding_mismatch")
    ]
    with server.client.beta.messages.stream(betas=[BINDING], **body) as stream:
        start = next(iter(stream))
    assert isinstance(start, BetaRawMessageStartEvent)
    assert entries(start.message.input_transformations) == [
        ("thinking_dropped", "messages.1.content.0", "model_binding_mismatch")
    ]


def test_every_response_under_the_beta_carries_the_list_and_none_without_it(api: Any) -> None:
    server = api()
    assert server.create(betas=[BINDING]).input_transformations == []
    raw = server.client.messages.with_raw_response.create(
        model=MODEL, max_tokens=100, messages=[{"role": "user", "content": "hi"}]
    )
    assert "input_transformations" not in json.loads(raw.http_response.text)
