"""Rules on content blocks: text must say something, and every `tool_use` is answered by its `tool_result`.

Wording from real API responses ([OBS] in /work/notes-team/api-docs.md §17): the docs state the pairing rule
("Tool use: handle tool calls", "Troubleshooting tool use") but not the messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...base.json_values import is_array, is_object
from .canonical import text_blocks
from .rejection import Rejection, invalid

_EMPTY = "text content blocks must be non-empty"
_BLANK = "text content blocks must contain non-whitespace text"


def _text_problem(block: Any) -> str | None:
    if not is_object(block) or block.get("type") != "text":
        return None
    text = block.get("text")
    if text == "":
        return _EMPTY
    if isinstance(text, str) and not text.strip():
        return _BLANK
    return None


def _nested(block: Any) -> list[Any]:
    """The blocks inside a `tool_result`; its string content counts as one text block unless it is empty."""
    if not is_object(block) or block.get("type") != "tool_result":
        return []
    content = block.get("content")
    if content == "":
        return []  # the same as no content (a lenient reading: the docs do not say)
    return text_blocks(content)


def check_text(body: dict[str, Any]) -> Rejection | None:
    """Empty and whitespace-only text blocks, in `system`, messages and tool results; messages without content."""
    for block in text_blocks(body.get("system")):
        problem = _text_problem(block)
        if problem is not None:
            return invalid(f"system: {problem}")
    messages: list[Any] = body.get("messages") or []
    for number, message in enumerate(messages):
        if not is_object(message):
            continue
        content = message.get("content")
        last_assistant = number == len(messages) - 1 and message.get("role") == "assistant"
        effort_only = message.get("role") == "system" and "output_config" in message
        if content in ("", []) and not (last_assistant or effort_only):
            return invalid(  # [OBS]
                f"messages.{number}: all messages must have non-empty content except for the optional final "
                "assistant message"
            )
        for block in text_blocks(content):
            for inner in (block, *_nested(block)):
                problem = _text_problem(inner)
                if problem is not None:
                    return invalid(f"messages: {problem}")  # [OBS] the API names no index here
    return None


def _blocks(message: Any) -> list[Any]:
    return [b for b in text_blocks(message.get("content")) if is_object(b)] if is_object(message) else []


def _leading_results(message: Any) -> set[str]:
    """Ids of the `tool_result` blocks a user message starts with (text before them ends the run)."""
    ids: set[str] = set()
    if not is_object(message) or message.get("role") != "user":
        return ids
    for block in _blocks(message):
        if block.get("type") != "tool_result":
            break
        ids.add(str(block.get("tool_use_id")))
    return ids


def check_tool_pairing(messages: Sequence[Any]) -> Rejection | None:
    """Each assistant `tool_use` answered first thing in the very next user message; no result without its call."""
    seen: set[str] = set()
    for number, message in enumerate(messages):
        blocks = _blocks(message)
        role = message.get("role") if is_object(message) else None
        if role == "assistant":
            calls: list[str] = []
            for position, block in enumerate(blocks):
                if block.get("type") != "tool_use":
                    continue
                call = str(block.get("id"))
                if call in seen:
                    return invalid(
                        f"messages.{number}.content.{position}: `tool_use` ids must be unique"
                    )  # [OBS]
                seen.add(call)
                calls.append(call)
            following = messages[number + 1] if number + 1 < len(messages) else None
            answered = _leading_results(following)
            missing = [c for c in calls if c not in answered]
            if missing:
                return invalid(  # [OBS]
                    f"messages.{number}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                    f"{', '.join(missing)}. Each `tool_use` block must have a corresponding `tool_result` block in "
                    "the next message."
                )
        elif role == "user":
            before = messages[number - 1] if number else None
            asked = (
                {str(b.get("id")) for b in _blocks(before) if b.get("type") == "tool_use"}
                if is_object(before) and before.get("role") == "assistant"
                else set[str]()
            )
            for position, block in enumerate(blocks):
                if block.get("type") == "tool_result" and str(block.get("tool_use_id")) not in asked:
                    return invalid(  # [OBS]
                        f"messages.{number}.content.{position}: unexpected `tool_use_id` found in `tool_result` "
                        f"blocks: {block.get('tool_use_id')}. Each `tool_result` block must have a corresponding "
                        "`tool_use` block in the previous message."
                    )
    return None


def images_in(body: dict[str, Any]) -> list[tuple[str, Any]]:
    """(path, block) of every image block in the messages, those inside tool results included."""
    found: list[tuple[str, Any]] = []
    for number, message in enumerate(body.get("messages") or []):
        content = message.get("content") if is_object(message) else None
        if not is_array(content):
            continue
        for position, block in enumerate(content):
            path = f"messages.{number}.content.{position}"
            if is_object(block) and block.get("type") == "image":
                found.append((path, block))
            for inner_number, inner in enumerate(_nested(block)):
                if is_object(inner) and inner.get("type") == "image":
                    found.append((f"{path}.tool_result.content.{inner_number}", inner))
    return found
