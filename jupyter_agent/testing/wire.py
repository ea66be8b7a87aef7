"""What the scripted server puts on the wire for a turn: the full `Message` JSON, or its SSE events in the real
API's order, and the API's error body."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from .script import Block, Recorded, Text, Thinking, ToolUse, Turn
from .server_tools import (
    ServerToolUse,
    WebSearchResult,
    citation_deltas,
    full_server_block,
    server_block_events,
    web_search_requests,
)
from .strict.canonical import estimate_tokens

DEFAULT_MODEL = "claude-scripted"


def _chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _usage(
    turn: Turn, request: Mapping[str, Any], *, output_tokens: int, computed: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The turn's usage: the input side scripted if the turn sets any of it, else `computed` (the strict server's
    prompt cache), else estimated with nothing cached."""
    u = turn.usage
    scripted = (u.input_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens)
    usage: dict[str, Any]
    if computed is not None and all(value is None for value in scripted):
        usage = dict(computed)
    else:
        usage = {
            "input_tokens": u.input_tokens if u.input_tokens is not None else estimate_tokens(dict(request)),
            "cache_creation_input_tokens": u.cache_creation_input_tokens or 0,
            "cache_read_input_tokens": u.cache_read_input_tokens or 0,
        }
    usage["output_tokens"] = output_tokens
    searches = (
        u.web_search_requests if u.web_search_requests is not None else web_search_requests(turn.blocks)
    )
    if searches:
        usage["server_tool_use"] = {"web_search_requests": searches, "web_fetch_requests": 0}
    # A scripted input side is the turn's top-level (cumulative) figure as given: iterations only if scripted too.
    derived = u.iterations is None and all(value is None for value in scripted)
    iterations = _iterations(turn, usage) if derived else [dict(i) for i in u.iterations or ()]
    if iterations:
        usage["iterations"] = iterations
        if derived:  # the top level is the sum of the iterations, as the real API reports it
            keys = _INPUT_SIDE if u.output_tokens is not None else (*_INPUT_SIDE, "output_tokens")
            for key in keys:
                usage[key] = sum(int(i.get(key) or 0) for i in iterations)
    return usage


_INPUT_SIDE = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def _iterations(turn: Turn, prompt: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One `message` entry per server-side sampling iteration of a turn that ran server tools: a new iteration
    starts after each server tool's result, and reads the prompt plus everything the turn produced before it
    (the first one reads the prompt as the cache reported it). None for a turn the API did not loop on."""
    results = [i for i, b in enumerate(turn.blocks) if _is_server_result(b)]
    if not results:
        return []
    bounds = [0, *(i + 1 for i in results), len(turn.blocks)]
    iterations: list[dict[str, Any]] = []
    read = 0
    for start, end in itertools.pairwise(bounds):
        if start >= end and iterations:
            break
        produced = estimate_tokens(json.dumps([_full_block(turn.blocks, 0, i) for i in range(start, end)]))
        first = not iterations
        iterations.append(
            {
                "type": "message",
                "input_tokens": int(prompt.get("input_tokens") or 0) + read,
                "cache_creation_input_tokens": int(prompt.get("cache_creation_input_tokens") or 0)
                if first
                else 0,
                "cache_read_input_tokens": (
                    int(prompt.get("cache_read_input_tokens") or 0)
                    if first
                    else int(prompt.get("cache_read_input_tokens") or 0)
                    + int(prompt.get("cache_creation_input_tokens") or 0)
                ),
                "output_tokens": produced,
            }
        )
        read += produced
    return iterations


def _is_server_result(block: Block) -> bool:
    if isinstance(block, WebSearchResult):
        return True
    kind = block.block.get("type") if isinstance(block, Recorded) else None
    return isinstance(kind, str) and kind.endswith("_tool_result")


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
    if isinstance(block, Recorded):
        return dict(block.block)
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
        except (ValueError, RecursionError):  # malformed, a 5000-digit integer, 100k-deep nesting
            tool_input = block.raw_input  # a JSON object cannot carry malformed JSON; send the text
    return {
        "type": "tool_use",
        "id": _tool_id(block, index, position),
        "name": block.name,
        "input": tool_input,
    }


@dataclass(frozen=True)
class Shaped:
    """What the strict server changes in a turn's answer: the content (signed thinking blocks), the input side of
    the usage, and top-level fields such as `input_transformations`."""

    content: Sequence[Mapping[str, Any]]
    usage: Mapping[str, Any] | None = None
    extra: Mapping[str, Any] = field(default_factory=lambda: {})


def content_blocks(turn: Turn, index: int) -> list[dict[str, Any]]:
    """The turn's content as the API sends it whole (a non-streaming response's `content`)."""
    return [_full_block(turn.blocks, index, i) for i in range(len(turn.blocks))]


def _shaped(turn: Turn, index: int, shaped: Shaped | None) -> Shaped:
    return shaped if shaped is not None else Shaped(content=content_blocks(turn, index))


def _message(
    turn: Turn, request: Mapping[str, Any], index: int, shaped: Shaped, content: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    usage = _usage(turn, request, output_tokens=_output_tokens(turn), computed=shaped.usage)
    return {
        "id": f"msg_01scripted{index:04d}",
        "type": "message",
        "role": "assistant",
        "model": request.get("model") or DEFAULT_MODEL,
        "content": [dict(block) for block in content],
        "stop_reason": turn.resolved_stop_reason,
        "stop_sequence": turn.stop_sequence,
        **({"stop_details": dict(turn.stop_details)} if turn.stop_details is not None else {}),
        "usage": usage,
        **shaped.extra,
    }


def full_message(
    turn: Turn, request: Mapping[str, Any], index: int, shaped: Shaped | None = None
) -> dict[str, Any]:
    """The non-streaming response body for `turn`."""
    shaped = _shaped(turn, index, shaped)
    return _message(turn, request, index, shaped, shaped.content)


def _block_events(
    turn: Turn, block_json: Mapping[str, Any], index: int, position: int
) -> Iterator[tuple[str, dict[str, Any]]]:
    def delta(payload: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return "content_block_delta", {"type": "content_block_delta", "index": position, "delta": payload}

    size = turn.chunk_size
    block = turn.blocks[position]
    start: dict[str, Any]
    if isinstance(block, Recorded):
        start, payloads = recorded_events(dict(block_json), size)
        deltas = [delta(payload) for payload in payloads]
    elif isinstance(block, ServerToolUse | WebSearchResult):
        chunks = _chunks(json.dumps(dict(block.input)), size) if isinstance(block, ServerToolUse) else []
        start, payloads = server_block_events(turn.blocks, index, position, chunks)
        deltas = [delta(payload) for payload in payloads]
    elif isinstance(block, Text):
        start = {"type": "text", "text": ""}
        deltas = [delta({"type": "text_delta", "text": c}) for c in _chunks(block.text, size)]
        deltas += [delta(payload) for payload in citation_deltas(block.citations)]
    elif isinstance(block, Thinking):
        start = {"type": "thinking", "thinking": "", "signature": ""}
        text = str(block_json.get("thinking", ""))
        # An empty thinking block (display "omitted") still streams one empty thinking_delta, as the API does.
        deltas = [delta({"type": "thinking_delta", "thinking": c}) for c in _chunks(text, size) or [""]]
        deltas.append(delta({"type": "signature_delta", "signature": block_json.get("signature", "")}))
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


def stream_events(
    turn: Turn, request: Mapping[str, Any], index: int, shaped: Shaped | None = None
) -> list[tuple[str, dict[str, Any]]]:
    """The SSE events for `turn`, in the real API's order (one `ping` after the first block starts)."""
    shaped = _shaped(turn, index, shaped)
    message = _message(turn, request, index, shaped, [])
    message_usage = dict(message["usage"], output_tokens=1)
    start = {k: v for k, v in message.items() if k != "stop_details"}
    start |= {"stop_reason": None, "stop_sequence": None, "usage": message_usage}
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": start})
    ]
    for position in range(len(turn.blocks)):
        events.extend(_block_events(turn, shaped.content[position], index, position))
    events.insert(2 if turn.blocks else 1, ("ping", {"type": "ping"}))
    delta: dict[str, Any] = {"stop_reason": turn.resolved_stop_reason, "stop_sequence": turn.stop_sequence}
    if turn.stop_details is not None:
        delta["stop_details"] = dict(turn.stop_details)
    final_usage = dict(message["usage"])
    events.append(("message_delta", {"type": "message_delta", "delta": delta, "usage": final_usage}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def recorded_events(block: dict[str, Any], size: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(the `content_block_start` block, its deltas) for a block as the real API streams its kind."""
    kind = block.get("type")
    if isinstance(kind, str) and kind.endswith("tool_use") and "input" in block:
        chunks = _chunks(json.dumps(block["input"]), size)
        return {**block, "input": {}}, [{"type": "input_json_delta", "partial_json": c} for c in chunks]
    if kind == "text":
        citations: list[Any] = list(block.get("citations") or [])
        deltas = [{"type": "text_delta", "text": c} for c in _chunks(str(block.get("text", "")), size)]
        deltas += [{"type": "citations_delta", "citation": c} for c in citations]
        return {"type": "text", "text": ""}, deltas
    return block, []


def error_body(
    error_type: str, message: str, request_id: str, details: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Anthropic's error shape: `{"type": "error", "error": {"type": ..., "message": ..., "details"?: ...}}`."""
    error: dict[str, Any] = {"type": error_type, "message": message}
    if details:
        error["details"] = dict(details)
    return {"type": "error", "error": error, "request_id": request_id}


def unsupported_field(body: dict[str, Any], rejects: frozenset[str]) -> str | None:
    """The JSON path of the first field `rejects` names in `body` (`system.0.cache_control`), else None."""
    if "thinking" in rejects and "thinking" in body:
        return "thinking"
    if "cache_control" not in rejects:
        return None
    stack: list[tuple[str, Any]] = [(key, value) for key, value in body.items()]
    while stack:
        path, value = stack.pop(0)
        if isinstance(value, dict):
            mapping = cast(dict[str, Any], value)
            if "cache_control" in mapping:
                return f"{path}.cache_control"
            stack.extend((f"{path}.{k}", v) for k, v in mapping.items())
        elif isinstance(value, list):
            stack.extend((f"{path}.{i}", v) for i, v in enumerate(cast(list[Any], value)))
    return None
