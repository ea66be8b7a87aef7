"""What goes to the model is valid by construction: one function at the boundary, so no tool can forget.

A request the API cannot take does not fail alone: the content stays in the conversation and every later
request fails with it, until `%agent reset`. Two kinds of content did that: text that is not valid Unicode
(a Latin-1 file decoded with `surrogateescape` keeps its bytes as lone surrogates, which UTF-8 cannot
encode, so the SDK raised before sending) and image blocks whose bytes are not an image (an empty PNG in a
notebook output, an MCP "image" that decodes to text).

`valid_for_model` makes any JSON value safe to send: every lone surrogate becomes U+FFFD, every base64
image block is sniffed (`base.images`) — a real image within the API's limits keeps its bytes and gets its
true media type, anything else becomes a one-line text note saying why it was left out — and a text that is
only whitespace (which the API rejects) says so instead. The conversation passes every block it stores
through it once, when the message is appended (`valid_blocks`), so what is saved is encodable too and a request
costs nothing more than its new messages; the system prompt and the tools are checked once per conversation.
Unchanged values are returned as they are.

`surrogate_at` finds a lone surrogate in a model's tool input: that call becomes INVALID_ARGS, on its own.
"""

from __future__ import annotations

import base64
import binascii
import re
import threading
from collections import OrderedDict
from typing import Any

from ..base.images import ImageFacts, sniff
from ..base.json_values import is_array, is_object

_SURROGATE = re.compile("[\ud800-\udfff]")
_REPLACEMENT = "\ufffd"
#: Verdicts on image data already checked, by the base64 text itself (a str caches its hash, so a lookup of
#: the same block on the next request costs nothing); bounded, oldest dropped first.
_CHECKED: OrderedDict[str, ImageFacts | str] = OrderedDict()
_CHECKED_MAX = 128
_CHECKED_LOCK = threading.Lock()


def valid_text(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD (the same object when there is none)."""
    if text.isascii() or not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub(_REPLACEMENT, text)


#: What a text that is only whitespace (a tool that printed blank lines) becomes: the API takes no such block.
WHITESPACE_ONLY = "(only whitespace)"


def valid_blocks(blocks: list[Any]) -> list[Any]:
    """A user or system message's blocks as the API takes them: each `valid_for_model`, and text blocks with
    nothing but whitespace left out (they add nothing and the API rejects them)."""
    return [
        valid_for_model(block)
        for block in blocks
        if not (is_object(block) and block.get("type") == "text" and not str(block.get("text", "")).strip())
    ]


def valid_for_model(value: Any) -> Any:
    """`value` (a request, a message, a block) with its texts valid UTF-8 and its images real images."""
    if isinstance(value, str):
        return valid_text(value)
    if is_array(value):
        items = value
        checked = [valid_for_model(item) for item in items]
        return value if all(a is b for a, b in zip(checked, items, strict=True)) else checked
    if is_object(value):
        if value.get("type") == "image":
            return _valid_image(value)
        if value.get("type") == "tool_result":
            value = _non_blank_result(value)
        changed = False
        out: dict[str, Any] = {}
        for key, item in value.items():
            safe_key = valid_text(key)
            safe = valid_for_model(item)
            changed = changed or safe is not item or safe_key is not key
            out[safe_key] = safe
        return out if changed else value
    return value


def _non_blank_result(block: dict[str, Any]) -> dict[str, Any]:
    """A tool result whose text parts are only whitespace says so (the same object when none is)."""
    content = block.get("content")
    if isinstance(content, str):
        return {**block, "content": WHITESPACE_ONLY} if content and not content.strip() else block
    if not is_array(content):
        return block
    blank = [
        is_object(part) and part.get("type") == "text" and not str(part.get("text", "")).strip()
        for part in content
    ]
    if not any(blank):
        return block
    kept = [part for part, empty in zip(content, blank, strict=True) if not empty]
    return {**block, "content": kept or [{"type": "text", "text": WHITESPACE_ONLY}]}


def _valid_image(block: dict[str, Any]) -> dict[str, Any]:
    source = block.get("source")
    if not is_object(source) or source.get("type") != "base64":
        return block  # a URL or file reference: the API fetches and checks it
    data = source.get("data")
    verdict = _verdict(data) if isinstance(data, str) else "its data is not base64 text"
    if isinstance(verdict, str):
        return {"type": "text", "text": f"[an image was left out: {verdict}]"}
    if source.get("media_type") == verdict.media_type:
        return block
    return {**block, "source": {**source, "media_type": verdict.media_type}}


def _verdict(data: str) -> ImageFacts | str:
    with _CHECKED_LOCK:
        known = _CHECKED.get(data)
        if known is not None:
            _CHECKED.move_to_end(data)
            return known
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        verdict: ImageFacts | str = "its data is not valid base64"
    else:
        facts = sniff(raw)
        verdict = facts if isinstance(facts, ImageFacts) else facts.reason
    with _CHECKED_LOCK:
        _CHECKED[data] = verdict
        if len(_CHECKED) > _CHECKED_MAX:
            _CHECKED.popitem(last=False)
    return verdict


def surrogate_at(value: Any, path: str = "") -> str | None:
    """The JSON pointer of the first string (key or value) holding a lone surrogate, else None."""
    if isinstance(value, str):
        return (path or "/") if valid_text(value) is not value else None
    if is_array(value):
        for index, item in enumerate(value):
            found = surrogate_at(item, f"{path}/{index}")
            if found is not None:
                return found
    elif is_object(value):
        for key, item in value.items():
            step = f"{path}/{valid_text(key).replace('~', '~0').replace('/', '~1')}"
            if valid_text(key) is not key:
                return step
            found = surrogate_at(item, step)
            if found is not None:
                return found
    return None
