"""What the scripted server puts on the wire for a turn: the full `Message` JSON, or its SSE events in the real
API's order, and the API's error body."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .script import Block, Text, Thinking, ToolUse, Turn
from .server_tools import (
    ServerToolUse,
    WebSearchResult,
    citation_deltas,
    full_server_block,
    server_block_events,
    web_search_requests,
)

DEFAULT_MODEL = "claude-scripted"


def estimate_tokens(value: object) -> int:
    """About one token per 4 characters of compact JSON; what `count_tokens` and default usage report."""
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    return max(1, len(text) // 4)


def _chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _usage(turn: Turn, request: Mapping[str, Any], *, output_tokens: int) -> dict[str, Any]:
    u = turn.usage
    usage: dict[str, Any] = {
        "input_tokens": u.input_tokens if u.input_tokens is not None else estimate_tokens(dict(request)),
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": u.cache_creation_input_tokens,
        "cache_read_input_tokens": u.cache_read_input_tokens,
    }
    searches = (
        u.web_search_requests if u.web_search_requests is not None else web_search_requests(turn.blocks)
    )
    if searches:
        usage["server_tool_use"] = {"web_search_requests": searches, "web_fetch_requests": 0}
    return usage


def _output_tokens(turn: Turn) -> int:
    if turn.usage.output_tokens is not None:
        return turn.usage.output_tokens
    parts = [
        b.text if isinstance(b, Text) else b.thinking if isinstance(b, Thinking) else b.input_json()
        for b in turn.blocks
        if isinstance(b, Text | Thinking | ToolUse)
    ]
    return estimate_tokens("".join(parts))


def _tool_id(block: ToolUse, index: int, position: int) -> str:
    return block.id if block.id is not None else f"toolu_01_{index}_{position}"


def _full_block(blocks: Sequence[Block], index: int, position: int) -> dict[str, Any]:
    block = blocks[position]
    if isinstance(block, ServerToolUse | WebSearchResult):
        return full_server_block(blocks, index, position)
    if isinstance(block, Text):
        cited = [c.to_json() for c in block.citations]
        return {"type": "text", "text": block.text, **({"citations": cited} if cited else {})}
    if isinstance(block, Thinking):
        return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
    tool_input: object = dict(block.input)
    if block.raw_input is not None:
        try:
            tool_input = json.loads(block.raw_input)
        except json.JSONDecodeError:
            tool_input = block.raw_input  # a JSON object cannot carry malformed JSON; send the text
    return {
        "type": "tool_use",
        "id": _tool_id(block, index, position),
        "name": block.name,
        "input": tool_input,
    }


def _message(
    turn: Turn, request: Mapping[str, Any], index: int, content: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "id": f"msg_01scripted{index:04d}",
        "type": "message",
        "role": "assistant",
        "model": request.get("model") or DEFAULT_MODEL,
        "content": content,
        "stop_reason": turn.resolved_stop_reason,
        "stop_sequence": turn.stop_sequence,
        "usage": _usage(turn, request, output_tokens=_output_tokens(turn)),
    }


def full_message(turn: Turn, request: Mapping[str, Any], index: int) -> dict[str, Any]:
    """The non-streaming response body for `turn`."""
    return _message(
        turn, request, index, [_full_block(turn.blocks, index, i) for i in range(len(turn.blocks))]
    )


def _block_events(
    blocks: Sequence[Block], index: int, position: int, size: int
) -> Iterator[tuple[str, dict[str, Any]]]:
    def delta(payload: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return "content_block_delta", {"type": "content_block_delta", "index": position, "delta": payload}

    block = blocks[position]
    start: dict[str, Any]
    if isinstance(block, ServerToolUse | WebSearchResult):
        chunks = _chunks(json.dumps(dict(block.input)), size) if isinstance(block, ServerToolUse) else []
        start, payloads = server_block_events(blocks, index, position, chunks)
        deltas = [delta(payload) for payload in payloads]
    elif isinstance(block, Text):
        start = {"type": "text", "text": ""}
        deltas = [delta({"type": "text_delta", "text": c}) for c in _chunks(block.text, size)]
        deltas += [delta(payload) for payload in citation_deltas(block.citations)]
    elif isinstance(block, Thinking):
        start = {"type": "thinking", "thinking": "", "signature": ""}
        deltas = [delta({"type": "thinking_delta", "thinking": c}) for c in _chunks(block.thinking, size)]
        deltas.append(delta({"type": "signature_delta", "signature": block.signature}))
    else:
        start = {
            "type": "tool_use",
            "id": _tool_id(block, index, position),
            "name": block.name,
            "input": dict[str, Any](),
        }
        deltas = [
            delta({"type": "input_json_delta", "partial_json": c}) for c in _chunks(block.input_json(), size)
        ]
    yield "content_block_start", {"type": "content_block_start", "index": position, "content_block": start}
    yield from deltas
    yield "content_block_stop", {"type": "content_block_stop", "index": position}


def stream_events(turn: Turn, request: Mapping[str, Any], index: int) -> list[tuple[str, dict[str, Any]]]:
    """The SSE events for `turn`, in the real API's order (one `ping` after the first block starts)."""
    usage = _usage(turn, request, output_tokens=1)
    start = _message(turn, request, index, []) | {"stop_reason": None, "stop_sequence": None, "usage": usage}
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": start})
    ]
    for position in range(len(turn.blocks)):
        events.extend(_block_events(turn.blocks, index, position, turn.chunk_size))
    events.insert(2 if turn.blocks else 1, ("ping", {"type": "ping"}))
    delta = {"stop_reason": turn.resolved_stop_reason, "stop_sequence": turn.stop_sequence}
    final_usage = _usage(turn, request, output_tokens=_output_tokens(turn))
    events.append(("message_delta", {"type": "message_delta", "delta": delta, "usage": final_usage}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def error_body(error_type: str, message: str, request_id: str) -> dict[str, Any]:
    """Anthropic's error shape: `{"type": "error", "error": {"type": ..., "message": ...}}`."""
    return {"type": "error", "error": {"type": error_type, "message": message}, "request_id": request_id}
