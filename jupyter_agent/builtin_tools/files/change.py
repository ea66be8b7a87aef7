"""A file change planned before it is made: the approval shows its diff, the run writes it, the journal keeps it.

Write and Edit compute the new bytes in `plan` (no side effects), so `preview` and `run` share one code
path and a call that would fail (stale, no match) fails before anyone is asked to approve it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...base.journal import FileChange
from ...base.sandbox import atomic_write
from ...base.stopping import current_stop
from ...tools.context import ToolContext
from ...tools.core import Preview
from .access import Target, remember
from .diff import Diff, unified_diff
from .notebook_guard import check_notebook_file
from .text import TextDoc, display, is_binary


@dataclass(frozen=True, kw_only=True)
class PlannedChange:
    where: Target
    #: None when the file does not exist yet.
    before: bytes | None
    after: bytes
    diff: Diff

    @property
    def creates(self) -> bool:
        return self.before is None

    @property
    def unchanged(self) -> bool:
        return self.before == self.after

    def preview(self) -> Preview:
        text = self.diff.text or f"(no changes to {self.where.shown})\n"
        return Preview(kind="diff", text=text, language="diff")


def plan(where: Target, before: bytes | None, doc: TextDoc, new_text: str) -> PlannedChange:
    """The change that makes the file hold `new_text`, encoded as `doc` (the file as it was read) says; the
    diff compares the texts (nothing is shown of a missing or binary file)."""
    after = doc.encode(new_text, shown=where.shown)
    old = "" if before is None or is_binary(before) else display(doc.text)
    diff = unified_diff(old, display(new_text), where.shown)
    return PlannedChange(where=where, before=before, after=after, diff=diff)


def commit(ctx: ToolContext, change: PlannedChange, *, tool: str) -> None:
    """Write atomically, journal it for undo, and count it as read (the model knows what it just wrote).

    The write and its journal entry happen together or not at all once the user stops the run
    (`committing`), so a run stopped during a long Write knows whether the file was replaced.
    Never the kernel's own notebook while a frontend holds it (`check_notebook_file`), and never a missing
    directory at or above the root the file is under: a root that does not exist is an error, not created."""
    check_notebook_file(ctx, change.where.real)
    with current_stop().committing():
        atomic_write(change.where.real, change.after, make_below=ctx.sandbox.root_of(change.where.real))
        ctx.journal.record(
            FileChange(
                path=change.where.real,
                before=change.before,
                after=change.after,
                tool=tool,
                call_id=ctx.tool_use_id,
            )
        )
    remember(ctx, change.where, change.after)
