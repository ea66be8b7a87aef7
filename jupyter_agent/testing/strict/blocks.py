"""Rules on content blocks: text must say something, and every `tool_use` is answered by its `tool_result`.

Wording from real API responses: the docs state the pairing rule
("Tool use: handle tool calls", "Troubleshooting tool use") but not the messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...base.json_values import is_array, is_object
from .canonical import text_blocks
from .joined import JoinedTurn, Placed, joined_turns
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


def _leading_results(turn: JoinedTurn | None) -> set[str]:
    """Ids of the `tool_result` blocks a user turn starts with (text before them ends the run)."""
    ids: set[str] = set()
    if turn is None or turn.role != "user":
        return ids
    for placed in turn.blocks:
        if placed.type != "tool_result":
            break
        ids.add(str(placed.block.get("tool_use_id")))
    return ids


def check_tool_pairing(messages: Sequence[Any]) -> Rejection | None:
    """Each assistant `tool_use` answered first thing in the very next user turn; no result without its call.
    Consecutive messages of one role are one turn (`joined`)."""
    seen: set[str] = set()
    turns = joined_turns(messages)
    for number, turn in enumerate(turns):
        following = turns[number + 1] if number + 1 < len(turns) else None
        if turn.role == "assistant":
            calls: list[Placed] = []
            for placed in turn.blocks:
                if placed.type != "tool_use":
                    continue
                call = str(placed.block.get("id"))
                if call in seen:
                    return invalid(f"{placed.path}: `tool_use` ids must be unique")  # [OBS]
                seen.add(call)
                calls.append(placed)
            answered = _leading_results(following)
            missing = [c for c in calls if str(c.block.get("id")) not in answered]
            if missing:
                ids = ", ".join(str(c.block.get("id")) for c in missing)
                return invalid(  # [OBS]
                    f"messages.{missing[0].message}: `tool_use` ids were found without `tool_result` blocks "
                    f"immediately after: {ids}. Each `tool_use` block must have a corresponding `tool_result` "
                    "block in the next message."
                )
        elif turn.role == "user":
            before = turns[number - 1] if number else None
            asked = (
                {str(p.block.get("id")) for p in before.blocks if p.type == "tool_use"}
                if before is not None and before.role == "assistant"
                else set[str]()
            )
            for placed in turn.blocks:
                if placed.type == "tool_result" and str(placed.block.get("tool_use_id")) not in asked:
                    return invalid(  # [OBS]
                        f"{placed.path}: unexpected `tool_use_id` found in `tool_result` blocks: "
                        f"{placed.block.get('tool_use_id')}. Each `tool_result` block must have a corresponding "
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
