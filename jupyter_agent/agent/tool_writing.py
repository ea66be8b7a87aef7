"""A tool call's card while the model writes it: opened at the block's start, grown as the input arrives.

The stream sends a call's input in small `input_json_delta` pieces; a 200-line cell takes seconds. The
assembler (`stream.TurnAssembler`) keeps one `Writing` per call block and asks it, piece by piece, whether
the card should be shown anew: at most every `WRITING_INTERVAL`, only when the tool's `streamed_field` grew.
What is shown is read by a tolerant reader (`partial_json.partial_string`); the call itself is parsed and
decided only when its block is complete.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..base.result import ToolResult
from .events import ToolFinished, ToolWriting
from .partial_json import partial_string

if TYPE_CHECKING:
    from ..permissions.kinds import ToolKind

#: At most ~15 showings of a call being written per second, however fast its pieces come.
WRITING_INTERVAL = 1 / 15
#: A showing waits at least this many times what the last one took to read: reading the input so far grows
#: with it, and a 2 MB Write must not spend its stream re-reading itself (at most ~1/10 of the time goes to it).
READ_COST_FACTOR = 10

#: A tool's kind and its `streamed_field`, by the tool's name (the session's tools; an unknown name: "other").
ToolFacts = Callable[[str], "tuple[ToolKind, str | None]"]

#: What a card whose call never became complete says: the call was not run.
CUT_TEXT = "not run: the answer stopped before this call was complete"


def no_facts(name: str) -> tuple[ToolKind, str | None]:
    """For an assembler without tools (compaction's summary request): every call is "other", nothing streamed."""
    return "other", None


@dataclass(kw_only=True)
class Writing:
    """One call being written: its card's identity and what it last showed."""

    call_id: str
    name: str
    kind: ToolKind
    field: str | None
    clock: Callable[[], float] = time.monotonic
    shown: str | None = None
    #: The earliest time of the next showing: the interval after the card opened or the input was last read,
    #: or longer after a slow read.
    next_at: float = float("-inf")
    #: Its card was closed (the call completed, or was cut): nothing more is shown of it.
    closed: bool = False

    @classmethod
    def of(cls, block: dict[str, Any], tools: ToolFacts, clock: Callable[[], float]) -> Writing:
        """The writing of a `tool_use` block that just started."""
        name = str(block.get("name"))
        kind, streamed = tools(name)
        return cls(call_id=str(block.get("id")), name=name, kind=kind, field=streamed, clock=clock)

    def opened(self) -> ToolWriting:
        self.next_at = self.clock() + WRITING_INTERVAL
        return ToolWriting(call_id=self.call_id, name=self.name, kind=self.kind)

    def grew(self, parts: list[str]) -> ToolWriting | None:
        """The card anew when the field grew and the interval passed since it was last shown, else None."""
        if self.field is None or self.closed:
            return None
        now = self.clock()
        if now < self.next_at:
            return None
        text = partial_string("".join(parts), self.field)
        read = self.clock() - now
        self.next_at = now + max(WRITING_INTERVAL, READ_COST_FACTOR * read)
        if text is None or text == self.shown:
            return None
        self.shown = text
        return ToolWriting(call_id=self.call_id, name=self.name, kind=self.kind, text=text)

    def cut(self) -> ToolFinished:
        """The card's end when the answer stopped before the call was complete: interrupted, not run."""
        self.closed = True
        return ToolFinished(
            call_id=self.call_id,
            name=self.name,
            title=self.name,
            kind=self.kind,
            result=ToolResult.error("INTERRUPTED", CUT_TEXT),
            duration=None,
            decision=None,
        )
