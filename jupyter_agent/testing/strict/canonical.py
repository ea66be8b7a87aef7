"""The request as the API compares it: canonical JSON, the prompt as a flat run of blocks, and running digests.

Two checks compare earlier requests with this one, the prefix check on thinking blocks and the prompt cache, and
both ignore what the docs say does not count: JSON formatting and key order, `cache_control` markers (adding, moving
or removing one is legal), a key set to null against the key left out (the API parses both the same), a string `content` / `system` against the same text as one text block, and how the
blocks are split into consecutive messages of one role (the API joins those into one turn). Everything else, values
included, counts: a serializer that drops an empty field changes the prompt.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ...base.json_values import is_array, is_object
from .pixels import image_tokens

THINKING_TYPES = frozenset({"thinking", "redacted_thinking"})


def normalised(value: Any) -> Any:
    """`value` without `cache_control` keys and without keys set to null (the API reads null as absent)."""
    if is_object(value):
        return {k: normalised(v) for k, v in value.items() if k != "cache_control" and v is not None}
    if is_array(value):
        return [normalised(v) for v in value]
    return value


def canonical_json(value: Any) -> str:
    """Compact JSON with sorted keys, no `cache_control` and no nulls: equal for requests the API treats as equal."""
    return json.dumps(
        normalised(value), sort_keys=True, separators=(",", ":")
    )  # ASCII: lone surrogates hash too


def text_blocks(content: Any) -> list[Any]:
    """`content` (or `system`) as a list of blocks: a string is one text block, a missing value none."""
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content) if is_array(content) else [content]


def array(value: Any) -> list[Any]:
    """`value` when it is a JSON array, else an empty list (a missing or malformed field)."""
    return value if is_array(value) else []


def estimate_tokens(value: object) -> int:
    """About one token per 4 characters of compact JSON; what `count_tokens` and default usage report."""
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    return max(1, len(text) // 4)


def _image_data_out(value: Any, found: list[str]) -> Any:
    """`value` with the data of its base64 images emptied (collected in `found`)."""
    if is_object(value):
        source = value.get("source")
        if value.get("type") == "image" and is_object(source) and isinstance(source.get("data"), str):
            found.append(source["data"])
            return {**value, "source": {**source, "data": ""}}
        return {k: _image_data_out(v, found) for k, v in value.items()}
    if is_array(value):
        return [_image_data_out(v, found) for v in value]
    return value


def block_tokens(block: Any) -> int:
    """The server's token estimate of one block: its JSON at one token per 4 characters, images by their pixels."""
    images: list[str] = []
    text = canonical_json(_image_data_out(block, images))
    return estimate_tokens(text) + sum(image_tokens(data) for data in images)


@dataclass(frozen=True)
class Item:
    """One block of the prompt: a tool definition, a `system` block, or a block of a message (its path)."""

    section: str  # "tools" | "system" | "messages"
    role: str
    path: str  # "tools.0", "system.1", "messages.3.content.0", "messages.3" (a message's other fields)
    block: Any
    message: int | None = None
    index: int | None = None

    @property
    def is_thinking(self) -> bool:
        return is_object(self.block) and self.block.get("type") in THINKING_TYPES

    @property
    def key(self) -> str:
        return f"{self.section}|{self.role}|{canonical_json(self.block)}"


def message_items(messages: Sequence[Any]) -> Iterator[Item]:
    """The blocks of `messages` in order; a message's fields besides role and content (a system message's
    `output_config`) count as one item of it, since they are part of what the model was shown."""
    for i, message in enumerate(messages):
        if not is_object(message):
            continue
        role = str(message.get("role"))
        extra = {k: v for k, v in message.items() if k not in ("role", "content")}
        if extra:
            yield Item("messages", role, f"messages.{i}", extra, message=i)
        for j, block in enumerate(text_blocks(message.get("content"))):
            yield Item("messages", role, f"messages.{i}.content.{j}", block, message=i, index=j)


def prompt_items(body: dict[str, Any]) -> list[Item]:
    """Tools, then system, then messages: the order the prompt cache reads a request in."""
    tools = [Item("tools", "", f"tools.{n}", t) for n, t in enumerate(body.get("tools") or [])]
    system = [Item("system", "", f"system.{n}", b) for n, b in enumerate(text_blocks(body.get("system")))]
    return [*tools, *system, *message_items(body.get("messages") or [])]


def digest(*parts: str) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode())
        h.update(b"\x00")
    return h.hexdigest()[:32]


def section_digest(body: dict[str, Any], section: str) -> str:
    """The digest of `system` or `tools` as canonical JSON."""
    value = text_blocks(body.get("system")) if section == "system" else body.get("tools") or []
    return digest(section, canonical_json(value))
