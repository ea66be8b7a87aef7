"""Rules on the turns of `messages`: roles, where a mid-conversation system message may stand, prefill, and the
thinking block a manual-thinking tool loop must start with.

Docs: "Mid-conversation system messages" (placement), "Errors" and the migration guides (prefill), "Extended
thinking" (manual mode), "Handling stop reasons" (a `pause_turn` continuation ends with the paused assistant turn and
is not a prefill; the docs imply it: docs/testing.md "Where the docs are silent" 5).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...base.json_values import is_object
from .canonical import THINKING_TYPES, text_blocks
from .joined import JoinedTurn, joined_turns
from .models import ServedModel
from .rejection import Rejection, invalid

EFFORT_BETA = "mid-conversation-output-config-2026-07-01"
CLEAR_AT_BETA = "mid-conversation-system-clear-at-2026-08-21"
_ROLES = ("user", "assistant", "system")
_PREFILL = (
    "This model does not support assistant message prefill. The conversation must end with a user message."
)
_EXTENDED_DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"


def _blocks(message: Any) -> list[Any]:
    return [b for b in text_blocks(message.get("content")) if is_object(b)] if is_object(message) else []


def _effort_only(message: dict[str, Any]) -> bool:
    return message.get("role") == "system" and not _blocks(message) and "output_config" in message


def ends_with_server_result(message: Any) -> bool:
    """An assistant turn whose last block is a server tool's call or result (a paused server-tool loop)."""
    blocks = _blocks(message)
    last = str(blocks[-1].get("type")) if blocks else ""
    return last == "server_tool_use" or (last.endswith("_tool_result") and last != "tool_result")


def check_roles(
    messages: Sequence[Any], row: ServedModel, betas: frozenset[str], paused: Callable[[Any], bool]
) -> Rejection | None:
    if not messages:
        return invalid("messages: at least one message is required")  # (our wording)
    for number, message in enumerate(messages):
        if not is_object(message) or message.get("role") not in _ROLES:
            return invalid(
                f"messages.{number}.role: Input should be 'user', 'assistant' or 'system'"
            )  # (ours)
        problem = _message_fields(number, message, row, betas)
        if problem is not None:
            return problem
    return _check_placement(messages, paused)


def _message_fields(
    number: int, message: dict[str, Any], row: ServedModel, betas: frozenset[str]
) -> Rejection | None:
    system = message.get("role") == "system"
    if "clear_at" in message:  # [DOC] the three messages of "Mid-conversation system messages"
        if CLEAR_AT_BETA not in betas:
            return invalid(f"messages.{number}.clear_at: Extra inputs are not permitted")
        if not system:
            return invalid(
                f"messages.{number}.clear_at: clear_at is only permitted on role 'system' messages"
            )
        if message["clear_at"] not in ("next_user_message", "never"):
            return invalid(f"messages.{number}.clear_at: Input should be 'next_user_message' or 'never'")
    if "output_config" in message:
        if not system or EFFORT_BETA not in betas:
            return invalid(
                f"messages.{number}.output_config: Extra inputs are not permitted"
            )  # pydantic's form
        if not row.per_message_effort:
            return invalid(  # [DOC] "Effort"
                "output_config.effort requires a model that supports per-turn effort; this model does not"
            )
    if system and not _effort_only(message) and not row.system_messages:
        return invalid("role 'system' is not supported on this model")  # [OBS]
    if system and message.get("clear_at") == "next_user_message":
        return _turn_scoped(number, message)
    return None


def _turn_scoped(number: int, message: dict[str, Any]) -> Rejection | None:
    """A turn-scoped system message (`clear_at: "next_user_message"`): text only, no `output_config`, no
    `cache_control` on its blocks ([DOC] "Mid-conversation system messages", verbatim)."""
    scope = "(clear_at: 'next_user_message')"
    blocks = text_blocks(message.get("content"))
    if any(not is_object(b) or b.get("type") != "text" for b in blocks):
        return invalid(f"messages.{number}: a turn-scoped system message supports text blocks only {scope}")
    if "output_config" in message:
        return invalid(
            f"messages.{number}: output_config is not permitted on a turn-scoped system message {scope}"
        )
    for index, block in enumerate(blocks):
        if block.get("cache_control") is not None:
            return invalid(
                f"messages.{number}.content.{index}: cache_control is not permitted on a turn-scoped system "
                f"message {scope}"
            )
    return None


def _check_placement(messages: Sequence[Any], paused: Callable[[Any], bool]) -> Rejection | None:
    """A system message with content follows a user turn (or a paused assistant turn: one ending in a server tool's
    call or result, or one the server answered with `pause_turn`) and precedes an assistant turn or ends the
    conversation; consecutive ones are judged together (docs, rules 1-4)."""
    turns = joined_turns(messages)
    for number, turn in enumerate(turns):
        if turn.role != "system" or all(_effort_only(messages[m]) for m in turn.messages):
            continue
        before = turns[number - 1] if number else None
        after = turns[number + 1] if number + 1 < len(turns) else None
        follows_user = before is not None and (
            before.role == "user" or (before.role == "assistant" and was_paused(before, paused))
        )
        if not follows_user or (after is not None and after.role != "assistant"):
            where = (
                "the first message"
                if before is None
                else f"after a{'n' if before.role == 'assistant' else ''} {before.role} turn"
            )
            return invalid(  # (our wording; the docs give the rule, not the message)
                f"messages.{turn.first}: a system message must directly follow a user turn and directly precede an "
                f"assistant turn or end the conversation; this one is {where}"
                + ("" if after is None else f" and before a {after.role} turn")
            )
    return None


def check_prefill(
    messages: Sequence[Any], row: ServedModel, paused: Callable[[Any], bool]
) -> Rejection | None:
    """A request ending with an assistant turn, on a model without prefill, unless it continues a paused turn.
    The turn is joined: a continuation appended to the paused message, or sent as its own message, is the same."""
    turns = joined_turns(messages)
    last = turns[-1] if turns else None
    if row.prefill or last is None or last.role != "assistant":
        return None
    if was_paused(last, paused):
        return None
    return invalid(_PREFILL)  # [DOC]


def was_paused(turn: JoinedTurn, paused: Callable[[Any], bool]) -> bool:
    """An assistant turn that ends where the server paused it: in a server tool's call or result, or with a
    response the server answered with `pause_turn` (`paused`)."""
    content = turn.content()
    return ends_with_server_result({"content": content}) or paused(content)


def check_manual_thinking(messages: Sequence[Any], thinking: str | None) -> Rejection | None:
    """With `thinking.type: "enabled"`, the assistant turn a request continues (its tool loop) starts with thinking.
    Only a request continuing a tool loop (ending with the assistant turn, or with a user turn that starts with
    tool results) is checked (docs/testing.md, "Where the docs are silent" 2)."""
    turns = joined_turns(messages)
    if thinking != "enabled" or not turns:
        return None
    last = turns[-1]
    if last.role == "assistant":
        turn: JoinedTurn | None = last
    elif last.role == "user" and last.blocks[:1] and last.blocks[0].type == "tool_result":
        turn = turns[-2] if len(turns) >= 2 and turns[-2].role == "assistant" else None
    else:
        return None
    if turn is None:
        return None
    first = turn.blocks[0].type if turn.blocks else "nothing"
    if first in THINKING_TYPES:
        return None
    return invalid(  # [OBS] (sic: "preceeding", "lastmost")
        f"messages.{turn.first}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{first}`. "
        "When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the "
        "lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous "
        f"turns. To avoid this requirement, disable `thinking`. Please consult our documentation at {_EXTENDED_DOCS}"
    )
