"""The JSON form of a script, for the subprocess mode (`python -m jupyter_agent.testing --script …`).

Every key mirrors a Python field of `script.py`; unknown keys are errors that name their path, so a typo fails
loudly (`turns[0]: unknown key(s) blokcs`).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any, cast, get_args

from ..base.json_values import is_array, is_object
from .script import (
    Block,
    ErrorType,
    Fault,
    Recorded,
    ScriptedUsage,
    StopReason,
    Text,
    Thinking,
    ToolUse,
    Turn,
)
from .server_tools import Citation, SearchHit, ServerToolUse, WebSearchResult


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
        cited = f.get("citations") or list[object]()
        citations = [
            _citation_from_json(c, f"{where}.citations[{i}]")
            for i, c in enumerate(_listed(cited, f"{where}.citations"))
        ]
        block = Text(f.str_("text"), citations) if citations else Text(f.str_("text"))
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
    elif kind == "server_tool_use":
        server_input = f.get("input") or dict[str, Any]()
        if not is_object(server_input):
            raise ScriptFormatError(f"{where}.input: expected an object, got {type(server_input).__name__}")
        block = ServerToolUse(input=server_input, name=f.str_("name", "web_search"), id=f.opt_str("id"))
    elif kind == "web_search_tool_result":
        hits = [
            _hit_from_json(h, f"{where}.results[{i}]")
            for i, h in enumerate(_listed(f.get("results") or list[object](), f"{where}.results"))
        ]
        block = WebSearchResult(
            results=hits, error_code=f.opt_str("error_code"), tool_use_id=f.opt_str("tool_use_id")
        )
    else:
        raise ScriptFormatError(
            f"{where}.type: {kind!r} is not one of text, thinking, tool_use, server_tool_use, web_search_tool_result"
        )
    f.done()
    return block


def _listed(value: object, where: str) -> list[object]:
    if not is_array(value):
        raise ScriptFormatError(f"{where}: expected a list, got {type(value).__name__}")
    return list(value)


def _citation_from_json(value: object, where: str) -> Citation:
    f = _Fields(value, where)
    citation = Citation(url=f.str_("url"), title=f.str_("title"), cited_text=f.str_("cited_text", ""))
    f.done()
    return citation


def _hit_from_json(value: object, where: str) -> SearchHit:
    f = _Fields(value, where)
    hit = SearchHit(title=f.str_("title"), url=f.str_("url"), page_age=f.opt_str("page_age"))
    f.done()
    return hit


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
    usage = ScriptedUsage()
    if f.get("usage") is not None:
        u = _Fields(f.data["usage"], f"{where}.usage")
        usage = ScriptedUsage(
            input_tokens=u.int_("input_tokens"),
            output_tokens=u.int_("output_tokens"),
            cache_creation_input_tokens=u.int_("cache_creation_input_tokens"),
            cache_read_input_tokens=u.int_("cache_read_input_tokens"),
            web_search_requests=u.int_("web_search_requests"),
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


def recorded_turn(response: dict[str, Any]) -> Turn:
    """The turn that answers as a recorded real response did (a Messages API `Message` body, as a test
    cassette keeps it): its blocks verbatim (`Recorded`; a thinking block as `Thinking`, so the strict server
    signs it for this conversation as the API would), its stop reason and `stop_details`, and its usage as
    reported: cumulative, with `iterations` only where the recording has them."""
    usage: dict[str, Any] = response.get("usage") or {}
    server: dict[str, Any] = usage.get("server_tool_use") or {}
    blocks: list[Block] = [
        Thinking(str(b.get("thinking", "")), str(b.get("signature", "")))
        if b.get("type") == "thinking"
        else Recorded({k: v for k, v in b.items() if v is not None})
        for b in cast(list[dict[str, Any]], response.get("content") or [])
    ]
    stop_reason = response.get("stop_reason")
    return Turn(
        blocks=blocks,
        stop_reason=cast(StopReason, stop_reason) if stop_reason in get_args(StopReason) else None,
        stop_details=response.get("stop_details"),
        usage=ScriptedUsage(
            input_tokens=int(usage.get("input_tokens") or 0),
            output_tokens=int(usage.get("output_tokens") or 0),
            cache_creation_input_tokens=int(usage.get("cache_creation_input_tokens") or 0),
            cache_read_input_tokens=int(usage.get("cache_read_input_tokens") or 0),
            web_search_requests=server.get("web_search_requests"),
            iterations=list(usage.get("iterations") or ()),
        ),
    )
