"""What the scripted server answers: turns of content blocks, usage and faults, as plain values.

A test states the model's behaviour as data (`Turn(blocks=[Text("hi")])`) instead of patching the
client, so the real `anthropic` SDK, its retries and its stream parser all run. The same values load
from JSON for the subprocess mode (`load_script`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, TypeAlias, cast, get_args

from ..base.json_values import is_array, is_object

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
    """A text block; streamed as several `text_delta` events of `Turn.chunk_size` characters."""

    text: str


@dataclass(frozen=True)
class Thinking:
    """An extended-thinking block; streamed as `thinking_delta` events and one `signature_delta`."""

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


Block: TypeAlias = Text | Thinking | ToolUse


@dataclass(frozen=True, kw_only=True)
class Usage:
    """Token counts reported for a turn; `None` means estimated (about one token per 4 characters)."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0


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
    usage: Usage = field(default_factory=Usage)
    delay: float = 0.0
    chunk_size: int = 16
    fault: Fault | None = None

    def __post_init__(self) -> None:
        if self.chunk_size < 1:
            raise ValueError(f"Turn.chunk_size must be >= 1, got {self.chunk_size}")
        if self.delay < 0:
            raise ValueError(f"Turn.delay must be >= 0, got {self.delay}")
        for block in self.blocks:
            if not isinstance(block, (Text, Thinking, ToolUse)):  # pyright: ignore[reportUnnecessaryIsInstance]
                raise TypeError(f"Turn.blocks takes Text, Thinking or ToolUse, got {type(block).__name__}")

    @property
    def resolved_stop_reason(self) -> StopReason:
        if self.stop_reason is not None:
            return self.stop_reason
        return "tool_use" if any(isinstance(b, ToolUse) for b in self.blocks) else "end_turn"


#: Dynamic script: called with the parsed request body and the 0-based request index.
ScriptFn: TypeAlias = Callable[[dict[str, Any], int], Turn]
Script: TypeAlias = Sequence[Turn] | ScriptFn


# --- JSON form (subprocess mode) -------------------------------------------------------------------


class ScriptFormatError(ValueError):
    """A JSON script does not match the documented format; the message names the offending path."""


class _Fields:
    """Reads one JSON object, with errors naming the path, and rejects unknown keys (typos)."""

    def __init__(self, value: object, where: str) -> None:
        if not isinstance(value, dict):
            raise ScriptFormatError(f"{where}: expected an object, got {type(value).__name__}")
        self.data = cast(dict[str, object], value)
        self.where = where
        self.used: set[str] = set()

    def get(self, key: str) -> object:
        self.used.add(key)
        return self.data.get(key)

    def str_(self, key: str, default: str | None = None) -> str:
        value = self.opt_str(key)
        if value is None:
            if default is None:
                raise ScriptFormatError(f"{self.where}.{key}: required string is missing")
            return default
        return value

    def opt_str(self, key: str) -> str | None:
        value = self.get(key)
        if value is not None and not isinstance(value, str):
            raise ScriptFormatError(f"{self.where}.{key}: expected a string, got {type(value).__name__}")
        return value

    def number(self, key: str) -> float | None:
        value = self.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ScriptFormatError(f"{self.where}.{key}: expected a number, got {type(value).__name__}")
        return float(value)

    def int_(self, key: str) -> int | None:
        value = self.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise ScriptFormatError(f"{self.where}.{key}: expected an integer, got {type(value).__name__}")
        return value

    def literal(self, key: str, options: tuple[str, ...]) -> str | None:
        value = self.opt_str(key)
        if value is not None and value not in options:
            raise ScriptFormatError(f"{self.where}.{key}: {value!r} is not one of {', '.join(options)}")
        return value

    def done(self) -> None:
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            raise ScriptFormatError(f"{self.where}: unknown key(s) {', '.join(unknown)}")


def _block_from_json(value: object, where: str) -> Block:
    f = _Fields(value, where)
    kind = f.str_("type")
    block: Block
    if kind == "text":
        block = Text(f.str_("text"))
    elif kind == "thinking":
        block = Thinking(f.str_("thinking"), f.str_("signature", "scripted-signature"))
    elif kind == "tool_use":
        raw_input = f.get("input")
        if raw_input is not None and not isinstance(raw_input, dict):
            raise ScriptFormatError(f"{where}.input: expected an object, got {type(raw_input).__name__}")
        tool_input = cast(dict[str, Any], raw_input or {})
        block = ToolUse(
            name=f.str_("name"), input=tool_input, id=f.opt_str("id"), raw_input=f.opt_str("raw_input")
        )
    else:
        raise ScriptFormatError(f"{where}.type: {kind!r} is not one of text, thinking, tool_use")
    f.done()
    return block


_FAULT_NAMES = (
    "rate_limit",
    "server_error",
    "overloaded",
    "error",
    "cut_stream",
    "stream_error",
    "stall",
    "no_response",
)


def _fault_from_json(value: object, where: str) -> Fault:
    if isinstance(value, str):
        value = {"type": value}
    f = _Fields(value, where)
    kind = f.literal("type", _FAULT_NAMES)
    retry_after = f.number("retry_after")
    message = f.opt_str("message")
    after_events = f.int_("after_events")
    seconds = f.number("seconds")
    error_type = cast(ErrorType | None, f.literal("error_type", get_args(ErrorType)))
    fault: Fault
    if kind == "rate_limit":
        fault = Fault.rate_limit(retry_after=retry_after if "retry_after" in f.data else 0.01)
    elif kind == "server_error":
        fault = Fault.server_error(retry_after=retry_after)
    elif kind == "overloaded":
        fault = Fault.overloaded(retry_after=retry_after)
    elif kind == "error":
        if error_type is None:
            raise ScriptFormatError(f"{where}.error_type: required for a fault of type 'error'")
        fault = Fault.error(
            error_type=error_type, message=message or "scripted error", retry_after=retry_after
        )
    elif kind == "cut_stream":
        fault = Fault.cut_stream(after_events=after_events or 0)
    elif kind == "stall":
        fault = Fault.stall(after_events=after_events or 0, seconds=seconds if seconds is not None else 30.0)
    elif kind == "no_response":
        fault = Fault.no_response(seconds=seconds if seconds is not None else 30.0)
    elif kind == "stream_error":
        fault = Fault.stream_error(
            after_events=after_events or 0, error_type=error_type or "overloaded_error"
        )
    else:
        raise ScriptFormatError(f"{where}.type: required, one of {', '.join(_FAULT_NAMES)}")
    if message is not None:
        fault = replace(fault, message=message)
    f.done()
    return fault


def _turn_from_json(value: object, where: str) -> Turn:
    f = _Fields(value, where)
    blocks_value = f.get("blocks") or list[object]()
    if not is_array(blocks_value):
        raise ScriptFormatError(f"{where}.blocks: expected a list, got {type(blocks_value).__name__}")
    blocks = [_block_from_json(b, f"{where}.blocks[{i}]") for i, b in enumerate(blocks_value)]
    usage = Usage()
    if f.get("usage") is not None:
        u = _Fields(f.data["usage"], f"{where}.usage")
        usage = Usage(
            input_tokens=u.int_("input_tokens"),
            output_tokens=u.int_("output_tokens"),
            cache_creation_input_tokens=u.int_("cache_creation_input_tokens") or 0,
            cache_read_input_tokens=u.int_("cache_read_input_tokens") or 0,
        )
        u.done()
    fault_value = f.get("fault")
    turn = Turn(
        blocks=blocks,
        stop_reason=cast(StopReason | None, f.literal("stop_reason", get_args(StopReason))),
        stop_sequence=f.opt_str("stop_sequence"),
        usage=usage,
        delay=f.number("delay") or 0.0,
        chunk_size=f.int_("chunk_size") or 16,
        fault=None if fault_value is None else _fault_from_json(fault_value, f"{where}.fault"),
    )
    f.done()
    return turn


def script_from_json(data: object) -> list[Turn]:
    """Turns from parsed JSON: a list of turns, or `{"turns": [...]}`. Raises `ScriptFormatError`."""
    if is_object(data):
        f = _Fields(data, "script")
        data = f.get("turns")
        f.done()
        if not is_array(data):
            raise ScriptFormatError("script.turns: expected a list of turns")
    if not is_array(data):
        raise ScriptFormatError(
            f"script: expected a list of turns or {{'turns': [...]}}, got {type(data).__name__}"
        )
    return [_turn_from_json(t, f"turns[{i}]") for i, t in enumerate(data)]


def load_script(path: str | Path) -> list[Turn]:
    """Read a JSON script file (see docs/testing.md for the format)."""
    text = Path(path).read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ScriptFormatError(f"{path}: not valid JSON: {e}") from e
    return script_from_json(data)
