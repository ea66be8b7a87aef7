"""`%agent undo`: revert one run's changes, newest first — unless something changed since the agent wrote it.

Refusing is per item: what the user changed afterwards is never lost to an undo; the message says what
undoing would have thrown away.
"""

from __future__ import annotations

from pathlib import Path

from ..base.journal import Change, FileChange, RunJournal
from ..base.sandbox import Sandbox
from ..tools.context import ToolContext
from .cells import undo_cell_change
from .files import undo_file_change


def describe_change(change: Change, sandbox: Sandbox) -> str:
    if isinstance(change, FileChange):
        verb = "created" if change.before is None else "changed"
        return f"{change.tool}: {verb} {sandbox.display_path(change.path)}"
    return f"{change.tool}: {change.op} cell {change.cell_id} in {Path(change.notebook).name}"


async def undo_run(journal: RunJournal, ctx: ToolContext) -> str:
    lines = [f"undo run {journal.run_id}:"]
    all_done = True
    for change in reversed(journal.changes):
        if isinstance(change, FileChange):
            step = await undo_file_change(change, ctx.sandbox)
            ctx.reads.forget(str(change.path))
        else:
            step = await undo_cell_change(change, ctx)
        all_done = all_done and step.done
        lines.append(f"  {step.text}")
    journal.undone = all_done
    if not all_done:
        lines.append("some changes were kept (see above); run %agent undo again after resolving them")
    return "\n".join(lines)
