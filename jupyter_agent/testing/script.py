"""What the scripted server answers: turns of content blocks, usage and faults, as plain values.

A test states the model's behaviour as data (`Turn(blocks=[Text("hi")])`) instead of patching the
client, so the real `anthropic` SDK, its retries and its stream parser all run. The same values load
from JSON for the subprocess mode (`load_script`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from .server_tools import Citation, ServerToolUse, WebSearchResult

StopReason: TypeAlias = Literal[
    "end_turn",
    "tool_use",
    "max_tokens",
    "stop_sequence",
    "pause_turn",
    "refusal",
    "model_context_window_exceeded",
]
ErrorType: TypeAlias = Literal[
    "invalid_request_error",
    "authentication_error",
    "billing_error",
    "permission_error",
    "not_found_error",
    "request_too_large",
    "rate_limit_error",
    "api_error",
    "timeout_error",
    "overloaded_error",
]
FaultKind: TypeAlias = Literal["http_error", "cut_stream", "stream_error", "stall", "no_response"]

#: The HTTP status the real API uses for each error type.
ERROR_STATUS: Mapping[ErrorType, int] = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}


@dataclass(frozen=True)
class Text:
    """A text block; streamed as several `text_delta` events of `Turn.chunk_size` characters, then one
    `citations_delta` per citation (web pages it cites, after a `WebSearchResult`)."""

    text: str
    citations: Sequence[Citation] = ()


@dataclass(frozen=True)
class Thinking:
    """An extended-thinking block; streamed as `thinking_delta` events and one `signature_delta`.

    The strict server (the default) replaces `signature` with its own, bound to the conversation as the API binds
    it, and sends the text empty where the request's `thinking.display` is "omitted" (the default on the 5.x
    models). With `ScriptedServer(strict=False)` both go out as scripted.
    """

    thinking: str
    signature: str = "scripted-signature"


@dataclass(frozen=True, kw_only=True)
class ToolUse:
    """A tool call. `raw_input` replaces the JSON of `input` verbatim, to send malformed or cut JSON.

    `id` defaults to `toolu_01_<request index>_<block index>`, so a test can predict it.
    """

    name: str
    input: Mapping[str, Any] = field(default_factory=lambda: {})
    id: str | None = None
    raw_input: str | None = None

    def input_json(self) -> str:
        """The exact `partial_json` text streamed for this call (joined)."""
        return self.raw_input if self.raw_input is not None else json.dumps(dict(self.input))


@dataclass(frozen=True)
class Recorded:
    """A content block exactly as the real API sent it (a recorded response's block, of any type: `mcp_tool_use`,
    `web_fetch_tool_result`, `bash_code_execution_tool_result`, `compaction`, one not invented yet). Streamed as the
    API streams its kind: a `*tool_use` block starts with `input: {}` and sends its input as `input_json_delta`
    chunks, a text block as `text_delta` and `citations_delta` events, any other block whole in its
    `content_block_start`."""

    block: Mapping[str, Any]


Block: TypeAlias = Text | Thinking | ToolUse | ServerToolUse | WebSearchResult | Recorded
BLOCK_TYPES = (Text, Thinking, ToolUse, ServerToolUse, WebSearchResult, Recorded)


@dataclass(frozen=True, kw_only=True)
class ScriptedUsage:
    """Token counts reported for a turn; `None` means the server's own figure.

    The input side (`input_tokens`, `cache_creation_input_tokens`, `cache_read_input_tokens`) is what the strict
    server's prompt cache reports unless one of the three is set here; then the set ones win and the others are 0
    (`input_tokens`: estimated). Output tokens are estimated at about one token per 4 characters.
    """

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_creation_input_tokens: int | None = None
    cache_read_input_tokens: int | None = None
    #: `server_tool_use.web_search_requests`; None counts the turn's web search calls.
    web_search_requests: int | None = None
    #: `usage.iterations` as sent (a recorded response's). None, with no input side scripted: a turn with
    #: server-run blocks reports one `message` entry per server-side iteration, and its top-level counts are
    #: their sums, as the real API does (a scripted input side is the top-level figure as given).
    iterations: Sequence[Mapping[str, Any]] | None = None


@dataclass(frozen=True, kw_only=True)
class Fault:
    """A failure answering one request instead of (or in the middle of) the turn's content.

    Build one with the class methods; each answers exactly one request and consumes its script entry,
    so `[Turn(fault=Fault.overloaded()), Turn(blocks=[Text("ok")])]` exercises the SDK's retry.
    """

    kind: FaultKind
    error_type: ErrorType = "api_error"
    message: str = "scripted fault"
    retry_after: float | None = None
    after_events: int = 0
    #: How long a `stall` / `no_response` keeps the connection silent (it ends early when the server stops).
    seconds: float = 0.0

    @property
    def status(self) -> int:
        """HTTP status of an `http_error` (and of a `stream_error` on a non-streaming request)."""
        return ERROR_STATUS[self.error_type]

    @classmethod
    def rate_limit(
        cls, *, retry_after: float | None = 0.01, message: str = "Rate limited (scripted)"
    ) -> Fault:
        """429 `rate_limit_error` with a `retry-after` header (seconds; the SDK honours fractions)."""
        return cls(kind="http_error", error_type="rate_limit_error", message=message, retry_after=retry_after)

    @classmethod
    def server_error(
        cls, *, retry_after: float | None = None, message: str = "Internal server error (scripted)"
    ) -> Fault:
        """500 `api_error`. Without `retry_after` the SDK backs off about 0.5 s, then 1 s."""
        return cls(kind="http_error", error_type="api_error", message=message, retry_after=retry_after)

    @classmethod
    def overloaded(cls, *, retry_after: float | None = None, message: str = "Overloaded (scripted)") -> Fault:
        """529 `overloaded_error`. Without `retry_after` the SDK backs off about 0.5 s, then 1 s."""
        return cls(kind="http_error", error_type="overloaded_error", message=message, retry_after=retry_after)

    @classmethod
    def error(cls, *, error_type: ErrorType, message: str, retry_after: float | None = None) -> Fault:
        """Any API error, e.g. `Fault.error(error_type="invalid_request_error", message="prompt is too long")`."""
        return cls(kind="http_error", error_type=error_type, message=message, retry_after=retry_after)

    @classmethod
    def cut_stream(cls, *, after_events: int = 1) -> Fault:
        """Send `after_events` SSE events, then close the connection mid-body (a dropped stream).

        On a non-streaming request the connection is closed before any response.
        """
        return cls(kind="cut_stream", after_events=after_events, message="stream cut (scripted)")

    @classmethod
    def stall(cls, *, after_events: int = 1, seconds: float = 30.0) -> Fault:
        """Send `after_events` SSE events, then nothing for `seconds` (the connection stays open), then close:
        a stream that stalls in the middle, which only a read timeout notices."""
        return cls(kind="stall", after_events=after_events, seconds=seconds, message="stalled (scripted)")

    @classmethod
    def no_response(cls, *, seconds: float = 30.0) -> Fault:
        """Accept the request and send nothing — not even the status line — for `seconds`, then close."""
        return cls(kind="no_response", seconds=seconds, message="no response (scripted)")

    @classmethod
    def stream_error(
        cls,
        *,
        after_events: int = 1,
        error_type: ErrorType = "overloaded_error",
        message: str | None = None,
    ) -> Fault:
        """Send `after_events` SSE events, then an `event: error` and end the body cleanly.

        This is how the real API reports a failure after the 200 headers went out.
        """
        message = message if message is not None else f"{error_type} (scripted, mid-stream)"
        return cls(kind="stream_error", after_events=after_events, error_type=error_type, message=message)


@dataclass(frozen=True, kw_only=True)
class Turn:
    """One answer of the model to one `POST /v1/messages`.

    `stop_reason` defaults to "tool_use" when a block is a `ToolUse`, else "end_turn". `delay` is slept
    between SSE events (once before a non-streaming answer). `chunk_size` is the characters per delta.
    """

    blocks: Sequence[Block] = ()
    stop_reason: StopReason | None = None
    stop_sequence: str | None = None
    usage: ScriptedUsage = field(default_factory=ScriptedUsage)
    delay: float = 0.0
    chunk_size: int = 16
    fault: Fault | None = None
    #: `stop_details` sent with the stop reason (a refusal's `{"type": "refusal", "category": …,
    #: "explanation": …}`).
    stop_details: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.chunk_size < 1:
            raise ValueError(f"Turn.chunk_size must be >= 1, got {self.chunk_size}")
        if self.delay < 0:
            raise ValueError(f"Turn.delay must be >= 0, got {self.delay}")
        for block in self.blocks:
            if not isinstance(block, BLOCK_TYPES):  # pyright: ignore[reportUnnecessaryIsInstance]
                names = ", ".join(t.__name__ for t in BLOCK_TYPES)
                raise TypeError(f"Turn.blocks takes {names}, got {type(block).__name__}")

    @property
    def resolved_stop_reason(self) -> StopReason:
        if self.stop_reason is not None:
            return self.stop_reason
        return "tool_use" if any(isinstance(b, ToolUse) for b in self.blocks) else "end_turn"


#: Dynamic script: called with the parsed request body and the 0-based request index.
ScriptFn: TypeAlias = Callable[[dict[str, Any], int], Turn]
Script: TypeAlias = Sequence[Turn] | ScriptFn
