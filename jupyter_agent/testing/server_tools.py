"""Server tools in a scripted turn: Anthropic's web search, as the real API streams it.

A search is two blocks of the assistant's turn: `ServerToolUse` (the query; streamed as `input_json_delta`
chunks like a tool call) and `WebSearchResult` (the pages, or an error code; it arrives whole in its
`content_block_start`). Cited text is a `Text` with `citations`, sent as `citations_delta` events after its
text. The usage reports `server_tool_use.web_search_requests`. The server also refuses, as the API does, a
request whose conversation holds a search call without its result.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..base.json_values import is_object
from .strict.canonical import array
from .strict.joined import JoinedTurn, Placed, joined_turns

Event = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class Citation:
    """A web page a text block cites (`web_search_result_location`)."""

    url: str
    title: str
    cited_text: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "web_search_result_location",
            "url": self.url,
            "title": self.title,
            "cited_text": self.cited_text,
            "encrypted_index": _opaque(self.url),
        }


@dataclass(frozen=True)
class SearchHit:
    """One page of a search's results."""

    title: str
    url: str
    page_age: str | None = None


@dataclass(frozen=True, kw_only=True)
class ServerToolUse:
    """A server tool call (web search by default). `id` defaults to `srvtoolu_01_<request>_<block>`."""

    input: Mapping[str, Any] = field(default_factory=lambda: {})
    name: str = "web_search"
    id: str | None = None


@dataclass(frozen=True, kw_only=True)
class WebSearchResult:
    """The pages a search found, or its `error_code` (`max_uses_exceeded`, `unavailable`, …).

    `tool_use_id` defaults to the id of the `ServerToolUse` before it in the turn.
    """

    results: Sequence[SearchHit] = ()
    error_code: str | None = None
    tool_use_id: str | None = None


ServerBlock = ServerToolUse | WebSearchResult


def _opaque(text: str) -> str:
    """What the API sends as encrypted content: opaque to the client, to be sent back as it came."""
    return base64.b64encode(f"scripted:{text}".encode()).decode()


def server_tool_id(block: ServerToolUse, index: int, position: int) -> str:
    return block.id if block.id is not None else f"srvtoolu_01_{index}_{position}"


def _result_id(blocks: Sequence[object], index: int, position: int) -> str:
    block = blocks[position]
    assert isinstance(block, WebSearchResult)
    if block.tool_use_id is not None:
        return block.tool_use_id
    for earlier in range(position - 1, -1, -1):
        candidate = blocks[earlier]
        if isinstance(candidate, ServerToolUse):
            return server_tool_id(candidate, index, earlier)
    return f"srvtoolu_01_{index}_missing"


def _result_content(block: WebSearchResult) -> Any:
    if block.error_code is not None:
        return {"type": "web_search_tool_result_error", "error_code": block.error_code}
    return [
        {
            "type": "web_search_result",
            "title": hit.title,
            "url": hit.url,
            "encrypted_content": _opaque(hit.url + hit.title),
            "page_age": hit.page_age,
        }
        for hit in block.results
    ]


def full_server_block(blocks: Sequence[object], index: int, position: int) -> dict[str, Any]:
    block = blocks[position]
    if isinstance(block, ServerToolUse):
        return {
            "type": "server_tool_use",
            "id": server_tool_id(block, index, position),
            "name": block.name,
            "input": dict(block.input),
        }
    assert isinstance(block, WebSearchResult)
    return {
        "type": "web_search_tool_result",
        "tool_use_id": _result_id(blocks, index, position),
        "content": _result_content(block),
    }


def server_block_events(
    blocks: Sequence[object], index: int, position: int, chunks: Sequence[str]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(the `content_block_start` block, the deltas): a call streams its input, a result arrives whole."""
    block = blocks[position]
    if isinstance(block, WebSearchResult):
        return full_server_block(blocks, index, position), []
    assert isinstance(block, ServerToolUse)
    start: dict[str, Any] = {**full_server_block(blocks, index, position), "input": dict[str, Any]()}
    return start, [{"type": "input_json_delta", "partial_json": chunk} for chunk in chunks]


def citation_deltas(citations: Sequence[Citation]) -> Iterator[dict[str, Any]]:
    for citation in citations:
        yield {"type": "citations_delta", "citation": citation.to_json()}


def web_search_requests(blocks: Sequence[object]) -> int:
    return sum(1 for b in blocks if isinstance(b, ServerToolUse) and b.name == "web_search")


def _only_tool_results(turn: JoinedTurn) -> bool:
    return turn.role == "user" and all(p.type == "tool_result" for p in turn.blocks)


def _server_calls(turn: JoinedTurn) -> tuple[dict[str, Placed], set[Any]]:
    """The turn's server tool calls by id, and the ids its server tool results answer."""
    calls = {str(p.block.get("id")): p for p in turn.blocks if p.type == "server_tool_use"}
    answered = {p.block.get("tool_use_id") for p in turn.blocks if p.type.endswith("_tool_result")}
    return calls, answered


def _offered(body: Mapping[str, Any]) -> set[Any]:
    tools: list[Any] = array(body.get("tools"))
    return {t.get("name") for t in tools if is_object(t)}


def unanswered_server_call(body: Mapping[str, Any]) -> str | None:
    """The API's 400 for a server tool call left without its result once the turn has ended, else None.

    A call may stay open in the last assistant turn while that turn goes on (docs "Handling stop reasons"): when
    the request ends with it (a `pause_turn` continuation, perhaps followed by a system message) or with a user
    message of only `tool_result` blocks (a client tool called beside it). Continuing it needs the server tool in
    `tools`. Consecutive assistant messages are one turn: a continuation sent as a message of its own answers the call.
    """
    offered = _offered(body)
    turns = joined_turns(array(body.get("messages")))
    for number, turn in enumerate(turns):
        if turn.role != "assistant":
            continue
        calls, answered = _server_calls(turn)
        for missing in sorted(set(calls) - answered):
            call = calls[missing]
            name = str(call.block.get("name"))
            # A system message after the paused turn (text, docs "Mid-conversation system messages") continues it.
            rest = [t for t in turns[number + 1 :] if t.role != "system"]
            if not rest or (len(rest) == 1 and _only_tool_results(rest[0])):
                if name in offered:
                    continue
                # [DOC] the message "ends with" this; its beginning is our wording.
                return (
                    f"messages.{call.message}.content: `{name}` tool use with id `{missing}` cannot be continued, "
                    f"but no `{name}` tool was provided"
                )
            # [DOC] "Handling stop reasons"
            return (
                f"messages.{call.message}.content: `{name}` tool use with id `{missing}` was found without a "
                f"corresponding `{name}_tool_result` block"
            )
    return None


def _added_by_system_messages(body: Mapping[str, Any]) -> set[Any]:
    """Tools a mid-conversation `tool_addition` defined: declared in the conversation as `tools` declares them (a
    later `tool_removal` stops offering one, and leaves it declared)."""
    names: set[Any] = set()
    for message in array(body.get("messages")):
        if not is_object(message) or message.get("role") != "system":
            continue
        for block in array(message.get("content")):
            tool = block.get("tool") if is_object(block) and block.get("type") == "tool_addition" else None
            definition = tool.get("definition") if is_object(tool) else None
            if is_object(definition):
                names.add(definition.get("name"))
    return names


def undeclared_server_tool(body: Mapping[str, Any]) -> str | None:
    """The strict server's 400 for a completed server tool call (call and result) in the history when `tools` does
    not declare that server tool, in `tools` or by a mid-conversation `tool_addition` (the docs leave this open; the
    prefix check forbids removing a tool from `tools` anyway, and a `tool_removal` leaves it declared)."""
    offered = _offered(body) | _added_by_system_messages(body)
    for turn in joined_turns(array(body.get("messages"))):
        if turn.role != "assistant":
            continue
        calls, answered = _server_calls(turn)
        for call_id in sorted(set(calls) & answered):
            call = calls[call_id]
            name = str(call.block.get("name"))
            if name not in offered:
                return (
                    f"messages.{call.message}.content: `{name}` tool use with id `{call_id}` is in the "
                    f"conversation, but no `{name}` tool was provided; keep `{name}` declared in `tools` for the "
                    "whole conversation (to stop offering it, append a `tool_removal` block)"
                )
    return None
