"""Caps on what a tool's description lists (the skills in `Skill`, the project's sub-agents in `Task`): a number
and a size, so a repository with hundreds of definitions cannot put hundreds of kilobytes into every request.

What does not fit is left out of the tool (not offered to the model) and one line says how many; the user still
runs a left-out skill with `%agent /name`, and `%agent skills` lists them all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..masking import clip

#: Entries one listing offers at most, and characters all its lines take at most.
MAX_LISTED = 100
MAX_LISTING_CHARS = 16_000
#: Characters of one entry's line (a long description is cut).
MAX_ENTRY_CHARS = 500

T = TypeVar("T")


@dataclass(frozen=True)
class Listing(Generic[T]):
    """The entries offered, their lines, and how many were left out."""

    kept: tuple[T, ...]
    lines: tuple[str, ...]
    left_out: int

    def text(self, noun: str) -> str:
        """The lines, then (when some were left out) the line that says how many."""
        more = (
            [
                f"- ({self.left_out} more {noun} not listed: over {MAX_LISTED} entries or {MAX_LISTING_CHARS:,} "
                "characters)"
            ]
            if self.left_out
            else []
        )
        return "\n".join([*self.lines, *more])


def capped(entries: Sequence[T], line: Callable[[T], str]) -> Listing[T]:
    """The first entries whose lines fit both caps, in order."""
    kept: list[T] = []
    lines: list[str] = []
    used = 0
    for entry in entries:
        text = clip(line(entry), MAX_ENTRY_CHARS)
        if len(kept) >= MAX_LISTED or used + len(text) + 1 > MAX_LISTING_CHARS:
            break
        kept.append(entry)
        lines.append(text)
        used += len(text) + 1
    return Listing(kept=tuple(kept), lines=tuple(lines), left_out=len(entries) - len(kept))


def left_out_warning(listing: Listing[T], noun: str) -> str | None:
    """The user's line when `listing` leaves entries out (None when everything fits)."""
    if not listing.left_out:
        return None
    return (
        f"jupyter_agent: {len(listing.kept) + listing.left_out} {noun}: only the first {len(listing.kept)} are "
        f"offered to the model (at most {MAX_LISTED}, in {MAX_LISTING_CHARS:,} characters); {listing.left_out} "
        "left out — %agent skills lists them all"
    )
