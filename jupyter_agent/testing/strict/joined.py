"""The turns of `messages` as the API reads them: consecutive messages of one role joined into one turn.

The API reference: "Consecutive user or assistant turns in your request will be combined into a single turn", and
consecutive system messages are judged together. So every rule about "the next user message", "the latest assistant
message" or "the turn a request continues" looks at joined turns, while errors still name the block's own path
(`messages.{i}.content.{j}`) as the request spelled it. A client that appends a paused turn's continuation to the
paused assistant message ([user, assistant(A + B)]) and one that sends it as a message of its own ([user,
assistant(A), assistant(B)]) are the same conversation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...base.json_values import is_object
from .canonical import text_blocks


@dataclass(frozen=True)
class Placed:
    """One content block and where the request put it."""

    message: int
    index: int
    block: dict[str, Any]

    @property
    def path(self) -> str:
        return f"messages.{self.message}.content.{self.index}"

    @property
    def type(self) -> str:
        return str(self.block.get("type"))


@dataclass(frozen=True)
class JoinedTurn:
    """Consecutive messages of one role, as one turn."""

    role: str
    #: Indexes of its messages in the request.
    messages: tuple[int, ...]
    blocks: tuple[Placed, ...]

    @property
    def first(self) -> int:
        return self.messages[0]

    def content(self) -> list[dict[str, Any]]:
        """Its blocks, as one message's content."""
        return [placed.block for placed in self.blocks]


def joined_turns(messages: Sequence[Any]) -> list[JoinedTurn]:
    """`messages` as turns; a message that is not an object is a turn of its own with no role."""
    turns: list[JoinedTurn] = []
    for number, message in enumerate(messages):
        role = str(message.get("role")) if is_object(message) else ""
        content = text_blocks(message.get("content")) if is_object(message) else []
        placed = tuple(Placed(number, j, b) for j, b in enumerate(content) if is_object(b))
        if turns and role and turns[-1].role == role:
            last = turns[-1]
            turns[-1] = JoinedTurn(role, (*last.messages, number), (*last.blocks, *placed))
        else:
            turns.append(JoinedTurn(role, (number,), placed))
    return turns


def latest_assistant(turns: Sequence[JoinedTurn]) -> JoinedTurn | None:
    """The latest assistant turn (joined), whatever follows it."""
    return next((t for t in reversed(turns) if t.role == "assistant"), None)
