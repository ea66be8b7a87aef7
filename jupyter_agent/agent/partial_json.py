"""Read one string field out of a tool input's JSON while the model is still writing it.

The stream sends a call's input as `input_json_delta` pieces; the card shows the field that holds the code or
text being written (a cell's `new_source`, a file's `content`) before the JSON is complete. This reader is
tolerant where `json.loads` is strict: the text may stop anywhere (inside a key, an escape, a surrogate pair),
and what has arrived of the field's value is returned. It reads only; the call itself is parsed once, whole,
when its block ends (`stream.parse_tool_input`).
"""

from __future__ import annotations

import json
import re

#: A JSON string's body up to its closing quote or the end of the text: a lone trailing backslash (an escape
#: cut in two) is not taken.
_STRING_BODY = re.compile(r'(?:[^"\\]|\\.)*', re.DOTALL)
#: A number or a literal (`true`, `null`): everything up to the next delimiter.
_SCALAR = re.compile(r"[^,}\]\s]*")
_SPACE = re.compile(r"\s*")
#: The pieces of a string body: a `\\u` escape (maybe cut short), another escape, a run of plain characters.
_TOKEN = re.compile(r"\\u[0-9a-fA-F]{0,4}|\\.|[^\\]+", re.DOTALL)
_SURROGATE = re.compile("[\ud800-\udfff]")


def partial_string(raw: str, key: str) -> str | None:
    """What has arrived of the string value of the top-level `key` of the JSON object `raw` is writing; None
    before its value starts, or when that value is not a string (or the text is not an object)."""
    at = _skip_space(raw, 0)
    if not raw.startswith("{", at):
        return None
    at += 1
    while True:
        at = _skip_space(raw, at)
        if not raw.startswith('"', at):
            return None  # the end of the object, or of the text so far
        name, at = _string(raw, at)
        if name is None:
            return None
        at = _skip_space(raw, at)
        if not raw.startswith(":", at):
            return None
        at = _skip_space(raw, at + 1)
        if name == key:
            if not raw.startswith('"', at):
                return None
            body = _STRING_BODY.match(raw, at + 1)
            return _decode(body.group() if body else "")
        at = _skip_value(raw, at)
        if at < 0:
            return None
        at = _skip_space(raw, at)
        if not raw.startswith(",", at):
            return None
        at += 1


def _skip_space(raw: str, at: int) -> int:
    found = _SPACE.match(raw, at)
    return found.end() if found else at


def _string(raw: str, at: int) -> tuple[str | None, int]:
    """The complete string starting at `raw[at]` (a quote) and the index after it; None when it is cut."""
    body = _STRING_BODY.match(raw, at + 1)
    end = body.end() if body else at + 1
    if not raw.startswith('"', end):
        return None, end
    return _decode(raw[at + 1 : end]), end + 1


def _skip_value(raw: str, at: int) -> int:
    """The index after the complete value at `raw[at]`, or -1 when it has not all arrived."""
    if raw.startswith('"', at):
        text, end = _string(raw, at)
        return -1 if text is None else end
    if not raw.startswith(("{", "["), at):
        found = _SCALAR.match(raw, at)
        end = found.end() if found else at
        return end if end > at and end < len(raw) else -1
    depth = 0
    while at < len(raw):
        ch = raw[at]
        if ch == '"':
            text, at = _string(raw, at)
            if text is None:
                return -1
            continue
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return at + 1
        at += 1
    return -1


def _decode(body: str) -> str:
    """A string body as text: a cut escape at its end dropped, and any lone surrogate made U+FFFD (it could not
    be sent on as UTF-8)."""
    try:
        text: str = json.loads(f'"{_whole_escapes(body)}"', strict=False)
    except json.JSONDecodeError:
        return ""  # an invalid escape: the call fails when it is parsed whole; nothing to show meanwhile
    return _SURROGATE.sub("\ufffd", text)


def _whole_escapes(body: str) -> str:
    """`body` without what a cut left undecodable at its end: a `\\u` escape missing digits (`\\u12`), or a
    high surrogate whose low half has not arrived (`\\ud83d`, `\\ud83d\\ude`)."""
    prev = last = None
    for token in _TOKEN.finditer(body):
        prev, last = last, token
    cut = len(body)
    if last is not None and last.group().startswith("\\u") and len(last.group()) < 6:
        cut, last = last.start(), prev
    if last is not None and last.end() == cut and _is_high_surrogate(last.group()):
        cut = last.start()
    return body[:cut]


def _is_high_surrogate(token: str) -> bool:
    return len(token) == 6 and token.startswith("\\u") and 0xD800 <= int(token[2:], 16) <= 0xDBFF
