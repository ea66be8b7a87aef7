"""Assemble one assistant turn from the SDK's raw stream events, tolerating what the helper does not.

Each tool input is parsed once, when its block ends; JSON that does not parse (malformed, or cut by
`max_tokens`) becomes `ToolCall(raw_input_error=...)` and the block is kept with an empty input, so the
conversation stays valid and the model is told to retry. A turn cut in the middle keeps its finished
blocks and its partial text (what the user saw) and drops partial tool calls and thinking.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..base.json_values import is_object
from ..masking import clip
from ..tools.core import ToolCall
from .boundary import surrogate_at
from .events import (
    TextDelta,
    TextDone,
    ThinkingDelta,
    ThinkingDone,
    ToolFinished,
    ToolStarted,
    ToolWriting,
    Usage,
    web_search_requests,
)
from .tool_writing import ToolFacts, Writing, no_facts
from .web_search import ServerCalls, citation_links

if TYPE_CHECKING:
    from anthropic.types import StopReason

#: How much of a malformed tool input is quoted back to the model.
_QUOTE_CHARS = 120
#: Tool inputs nest a few levels and hold offsets and counts; anything far beyond is an attack on the parser.
MAX_DEPTH = 200
MAX_INT_DIGITS = 100

#: A server tool's call and result (web search) are events at once: the Dispatcher never sees them.
StreamItem = (
    TextDelta | TextDone | ThinkingDelta | ThinkingDone | ToolCall | ToolWriting | ToolStarted | ToolFinished
)


@dataclass
class _Block:
    data: dict[str, Any]
    json_parts: list[str] = field(default_factory=list[str])
    done: bool = False
    #: The `input` the block started with: kept when no `input_json_delta` follows (a call sent whole).
    start_input: Any = None
    #: A `tool_use` block's card while the model writes it.
    writing: Writing | None = None


class TurnAssembler:
    """Feed it every raw event of one response; read `content()`, `calls`, `stop_reason`, `usage`.

    `narration`: the request asked for `display: "updates"` (or `between_tools`), so a thinking block with text
    is what the model wrote between tool calls: it is shown as text (its block is kept as the thinking block it
    is). `tools`: each tool's kind and streamed field, for the cards of calls being written (`ToolWriting`)."""

    def __init__(
        self,
        *,
        narration: bool = False,
        tools: ToolFacts = no_facts,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.narration = narration
        self.tools = tools
        self.clock = clock
        self._blocks: dict[int, _Block] = {}
        self.calls: list[ToolCall] = []
        self.stop_reason: StopReason | None = None
        self.usage = Usage()
        self.message_id: str = ""
        self.finished = False
        #: Web searches the API ran in this turn (their cards).
        self.server = ServerCalls()
        #: What the API changed in the request before the model read it (`input_transformations`: thinking
        #: blocks it dropped or let through), as dicts; a later list (after a fallback) replaces the first.
        self.transformations: list[dict[str, Any]] = []
        #: `usage.iterations` as dicts: one entry per sampling iteration of a server-side tool loop (the top-level
        #: usage is their sum); empty when the API did not report them.
        self.iterations: list[dict[str, Any]] = []
        #: `stop_details` of a refusal (`category`, `explanation`), as the API sent it; None when absent.
        self.stop_details: dict[str, Any] | None = None

    def feed(self, event: Any) -> StreamItem | None:
        kind = event.type
        if kind == "content_block_delta":
            return self._delta(event.index, event.delta)
        if kind == "content_block_start":
            data: dict[str, Any] = event.content_block.to_dict()
            start_input = data.get("input")
            if takes_streamed_input(data):
                data["input"] = {}
            block = _Block(data=data, done=data.get("type") == "redacted_thinking", start_input=start_input)
            self._blocks[event.index] = block
            if data.get("type") == "tool_use":
                block.writing = Writing.of(data, self.tools, self.clock)
                return block.writing.opened()
            return None
        if kind == "content_block_stop":
            return self._stop(event.index)
        if kind == "message_start":
            self.message_id = event.message.id
            self.usage = Usage.from_api(event.message.usage)
            self.iterations = iterations_of(event.message.usage) or self.iterations
            self.transformations = transformations_of(event.message) or self.transformations
        elif kind == "message_delta":
            self.stop_reason = event.delta.stop_reason
            self.stop_details = _as_dict(getattr(event.delta, "stop_details", None)) or self.stop_details
            self._merge_usage(event.usage)
            self.iterations = iterations_of(event.usage) or self.iterations
            self.transformations = transformations_of(event) or self.transformations
        elif kind == "message_stop":
            self.finished = True
        return None

    def _delta(self, index: int, delta: Any) -> StreamItem | None:
        block = self._blocks[index]
        kind = delta.type
        if kind == "text_delta":
            block.data["text"] = block.data.get("text", "") + delta.text
            return TextDelta(text=delta.text)
        if kind == "input_json_delta":
            block.json_parts.append(delta.partial_json)
            return block.writing.grew(block.json_parts) if block.writing is not None else None
        elif kind == "thinking_delta":
            block.data["thinking"] = block.data.get("thinking", "") + delta.thinking
            if not delta.thinking:
                return None
            return TextDelta(text=delta.thinking) if self.narration else ThinkingDelta(text=delta.thinking)
        elif kind == "signature_delta":
            block.data["signature"] = block.data.get("signature", "") + delta.signature
        elif kind == "citations_delta":
            citations: list[Any] = block.data.get("citations") or []
            block.data["citations"] = [*citations, delta.citation.to_dict()]
        return None

    def _stop(self, index: int) -> StreamItem | None:
        block = self._blocks[index]
        block.done = True
        kind = block.data.get("type")
        if kind == "text":
            links = citation_links(block.data.get("citations") or [])
            return TextDelta(text=links) if links else TextDone()  # cited passages read on as one text
        if kind == "thinking":
            if self.narration:
                return TextDone() if block.data.get("thinking") else None
            return ThinkingDone()
        if isinstance(kind, str) and kind.endswith("_tool_result"):  # a call the API ran: its card finishes
            return self.server.finish(block.data)
        if not takes_streamed_input(block.data):
            return None
        raw = "".join(block.json_parts)
        sent_whole = block.start_input
        if not raw.strip() and is_object(sent_whole) and sent_whole:
            raw = json.dumps(sent_whole)
        value, error = parse_tool_input(raw)
        block.data["input"] = value if isinstance(value, dict) else {}
        if (
            kind != "tool_use"
        ):  # a call the API runs itself (server_tool_use, mcp_tool_use, …): a card, no call
            return self.server.start(block.data)
        if block.writing is not None:
            block.writing.closed = True
        call = ToolCall(id=block.data["id"], name=block.data["name"], input=value, raw_input_error=error)
        self.calls.append(call)
        return call

    def _merge_usage(self, usage: Any) -> None:
        """message_delta usage is cumulative: its fields replace those of message_start when present."""
        current = self.usage
        self.usage = Usage(
            input=usage.input_tokens if getattr(usage, "input_tokens", None) is not None else current.input,
            output=usage.output_tokens if usage.output_tokens is not None else current.output,
            cache_read=(
                usage.cache_read_input_tokens
                if getattr(usage, "cache_read_input_tokens", None) is not None
                else current.cache_read
            ),
            cache_write=(
                usage.cache_creation_input_tokens
                if getattr(usage, "cache_creation_input_tokens", None) is not None
                else current.cache_write
            ),
            web_searches=web_search_requests(usage) or current.web_searches,
        )

    def prompt_tokens(self) -> int | None:
        """The size of the prompt this request sent, as the API measured it, or None when the response does not
        say. Usage is cumulative over the server-side iterations of a turn that ran server tools (web search,
        MCP, code execution; a `pause_turn`): there the first `message` entry of `usage.iterations` is the
        prompt, and without that breakdown the sum measures no prompt at all (the caller counts by itself)."""
        first = next((i for i in self.iterations if i.get("type") == "message"), None)
        if first is not None:
            return sum(int(first.get(key) or 0) for key in _INPUT_SIDE)
        ran_on_server = self.stop_reason == "pause_turn" or any(
            b.data.get("type") not in _MODEL_BLOCKS for b in self._blocks.values()
        )
        return None if ran_on_server else self.usage.prompt_tokens

    def content(self) -> list[dict[str, Any]]:
        """The assistant blocks to keep: a whole turn exactly as it came; of a stopped one, the finished blocks plus
        a partial text block (never a partial call, nor a server tool call whose result did not come: the API
        refuses one without the other)."""
        answered = {
            b.data.get("tool_use_id")
            for b in self._blocks.values()
            if b.done and b.data.get("type") != "text"
        }
        kept: list[dict[str, Any]] = []
        for index in sorted(self._blocks):
            block = self._blocks[index]
            kind = block.data.get("type")
            if kind == "text":
                if block.data.get("text"):
                    citations = block.data.get("citations") if block.done else None
                    text = {"type": "text", "text": block.data["text"]}
                    kept.append({**text, "citations": citations} if citations else text)
            elif _runs_on_server(kind) and block.data.get("id") not in answered and not self.finished:
                continue  # a stopped stream's search without its result (a whole turn keeps it: pause_turn)
            elif block.done:
                kept.append(_clean(block.data))
        return kept

    def cut_calls(self) -> list[ToolFinished]:
        """The ends of the cards of calls still being written when the stream stopped (each once): not run."""
        return [
            b.writing.cut() for b in self._blocks.values() if b.writing is not None and not b.writing.closed
        ]

    @property
    def has_partial_text(self) -> bool:
        return self.has_partial_narration or any(
            b.data.get("type") == "text" and not b.done for b in self._blocks.values()
        )

    @property
    def has_partial_thinking(self) -> bool:
        """A thinking block was being streamed (the UI closes it; the conversation drops it)."""
        return not self.narration and any(
            b.data.get("type") == "thinking" and not b.done for b in self._blocks.values()
        )

    @property
    def has_partial_narration(self) -> bool:
        return self.narration and any(
            b.data.get("type") == "thinking" and b.data.get("thinking") and not b.done
            for b in self._blocks.values()
        )


#: Blocks the model writes itself; any other kind in a turn was run by the API (a server-side iteration).
_MODEL_BLOCKS = ("text", "thinking", "redacted_thinking", "tool_use")
_INPUT_SIDE = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


def _as_dict(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if hasattr(value, "to_dict"):
        return value.to_dict()
    return {str(k): v for k, v in value.items()} if is_object(value) else None


def iterations_of(usage: Any) -> list[dict[str, Any]]:
    """`usage.iterations` as dicts (the SDK's beta types model it; the plain ones keep it as an extra field)."""
    found: Any = getattr(usage, "iterations", None)
    items: list[Any] = list(found) if isinstance(found, list | tuple) else []  # pyright: ignore[reportUnknownArgumentType]
    return [d for d in (_as_dict(item) for item in items) if d is not None]


def _runs_on_server(kind: Any) -> bool:
    """A call the API runs itself (`server_tool_use`, `mcp_tool_use`, …): its result comes in the same turn."""
    return isinstance(kind, str) and kind.endswith("tool_use") and kind != "tool_use"


def takes_streamed_input(data: dict[str, Any]) -> bool:
    """Whether a block's `input` arrives as `input_json_delta` chunks: every kind of tool call (`tool_use`,
    `server_tool_use`, `mcp_tool_use`, and any later `*_tool_use`), whose start carries `input: {}`."""
    kind = data.get("type")
    return isinstance(kind, str) and kind.endswith("tool_use") and "input" in data


def transformations_of(value: Any) -> list[dict[str, Any]]:
    """`input_transformations` of a message or a message_delta event, as dicts (none without the beta)."""
    found: Any = getattr(value, "input_transformations", None)
    if not found:
        return []
    return [item.to_dict() if hasattr(item, "to_dict") else dict(item) for item in found]


def _clean(data: dict[str, Any]) -> dict[str, Any]:
    """The block as a request param: no null fields from the response model (e.g. `citations: None`)."""
    return {k: v for k, v in data.items() if v is not None}


class _HostileJSON(ValueError):
    """JSON that parses but cannot go back into a request (NaN, Infinity) or is built to exhaust the parser."""


def _refuse_constant(name: str) -> Any:
    raise _HostileJSON(f"{name} is not a JSON number; send a finite number or a string")


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise _HostileJSON(
            f"an integer of {digits} digits is longer than the {MAX_INT_DIGITS} digits a tool input may hold; "
            "send it as a string"
        )
    return int(text)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _HostileJSON(f"{text} is too large for a JSON number; send a smaller number or a string")
    return value


def _depth(raw: str) -> int:
    """How deeply the arrays and objects of `raw` nest (brackets inside strings do not count)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in raw:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def parse_tool_input(raw: str) -> tuple[Any, str | None]:
    """(the parsed input, None) or ({}, what is wrong with the JSON and how to fix it).

    Only standard JSON is accepted: `NaN`, `Infinity`, `-Infinity` (which Python's parser takes) and numbers
    that overflow to infinity could
    never be sent back to the API, so keeping them in the conversation would break every later request;
    so could a lone surrogate (`"\\ud800"`), which UTF-8 cannot encode;
    integers longer than MAX_INT_DIGITS and nesting deeper than MAX_DEPTH are refused before they cost time
    or the parser's recursion. Each becomes an INVALID_ARGS result for that call; the run goes on.
    """
    if not raw.strip():
        return {}, None
    quoted = clip(raw, _QUOTE_CHARS)
    deepest = _depth(raw)
    if deepest > MAX_DEPTH:
        return {}, (
            f"the arguments nest {deepest} levels deep, more than the {MAX_DEPTH} a tool input may use: "
            f"{quoted}; send a flatter JSON object"
        )
    try:
        value = json.loads(
            raw, parse_constant=_refuse_constant, parse_int=_bounded_int, parse_float=_finite_float
        )
    except json.JSONDecodeError as exc:
        return {}, (
            f"the arguments were not valid JSON ({exc.msg} at character {exc.pos}): {quoted}; "
            "send them again as one complete JSON object"
        )
    except (_HostileJSON, ValueError, RecursionError) as exc:
        return {}, f"the arguments were not usable JSON ({exc}): {quoted}; send them again as standard JSON"
    where = surrogate_at(value)
    if where is not None:
        return {}, (
            f"the string at {where} holds a lone surrogate (a \\ud800-\\udfff escape without its pair), which "
            "is not valid Unicode and cannot be sent back; send that text as valid characters"
        )
    return value, None
