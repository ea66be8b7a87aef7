"""Rules on the turns of `messages`: roles, where a mid-conversation system message may stand, prefill, and the
thinking block a manual-thinking tool loop must start with.

Docs: "Mid-conversation system messages" (placement), "Errors" and the migration guides (prefill), "Extended
thinking" (manual mode), "Handling stop reasons" (a `pause_turn` continuation ends with the paused assistant turn and
is not a prefill; the docs imply it, /work/notes-team/api-docs.md §10.2).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...base.json_values import is_object
from .canonical import THINKING_TYPES, text_blocks
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


def check_roles(messages: Sequence[Any], row: ServedModel, betas: frozenset[str]) -> Rejection | None:
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
    return _check_placement(messages)


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
    return None


def _check_placement(messages: Sequence[Any]) -> Rejection | None:
    """A system message with content follows a user turn (or an assistant turn ending in a server tool result) and
    precedes an assistant turn or ends the conversation; consecutive ones are judged together (docs, rules 1-4)."""
    number = 0
    while number < len(messages):
        if messages[number].get("role") != "system":
            number += 1
            continue
        end = number
        while end + 1 < len(messages) and messages[end + 1].get("role") == "system":
            end += 1
        group = messages[number : end + 1]
        if all(_effort_only(m) for m in group):
            number = end + 1
            continue
        before = messages[number - 1] if number else None
        after = messages[end + 1] if end + 1 < len(messages) else None
        follows_user = is_object(before) and (
            before.get("role") == "user"
            or (before.get("role") == "assistant" and ends_with_server_result(before))
        )
        if not follows_user or (after is not None and after.get("role") != "assistant"):
            where = (
                "the first message"
                if before is None
                else f"after a{'n' if before.get('role') == 'assistant' else ''} {before.get('role')} turn"
            )
            return invalid(  # (our wording; the docs give the rule, not the message)
                f"messages.{number}: a system message must directly follow a user turn and directly precede an "
                f"assistant turn or end the conversation; this one is {where}"
                + ("" if after is None else f" and before a {after.get('role')} turn")
            )
        number = end + 1
    return None


def check_prefill(
    messages: Sequence[Any], row: ServedModel, paused: Callable[[Any], bool]
) -> Rejection | None:
    """A request ending with an assistant turn, on a model without prefill, unless it continues a paused turn."""
    last = messages[-1] if messages else None
    if row.prefill or not is_object(last) or last.get("role") != "assistant":
        return None
    if ends_with_server_result(last) or paused(last.get("content")):
        return None
    return invalid(_PREFILL)  # [DOC]


def check_manual_thinking(messages: Sequence[Any], thinking: str | None) -> Rejection | None:
    """With `thinking.type: "enabled"`, the assistant turn a request continues (its tool loop) starts with thinking."""
    if thinking != "enabled" or not messages:
        return None
    last = messages[-1]
    if last.get("role") == "assistant":
        number = len(messages) - 1
    elif last.get("role") == "user" and (_blocks(last)[:1] or [{}])[0].get("type") == "tool_result":
        number = len(messages) - 2
    else:
        return None
    blocks = _blocks(messages[number]) if number >= 0 else []
    first = str(blocks[0].get("type")) if blocks else "nothing"
    if first in THINKING_TYPES:
        return None
    return invalid(  # [OBS] (sic: "preceeding", "lastmost")
        f"messages.{number}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{first}`. When "
        "`thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the "
        "lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous "
        f"turns. To avoid this requirement, disable `thinking`. Please consult our documentation at {_EXTENDED_DOCS}"
    )
