"""`%agent undo`: revert one run's changes, newest first — unless something changed since the agent wrote it.

Refusing is per item: what the user changed afterwards is never lost to an undo; the message says what
undoing would have thrown away.
"""

from __future__ import annotations

import asyncio
import difflib
from pathlib import Path

from ..tools.context import ToolContext
from ..tools.journal import CellChange, Change, FileChange, RunJournal, UndoStep
from ..tools.sandbox import Sandbox, atomic_write


def describe_change(change: Change, sandbox: Sandbox) -> str:
    if isinstance(change, FileChange):
        verb = "created" if change.before is None else "changed"
        return f"{change.tool}: {verb} {sandbox.display_path(change.path)}"
    return f"{change.tool}: {change.op} cell {change.cell_id} in {Path(change.notebook).name}"


def _changed_lines(expected: str, current: str) -> int:
    diff = difflib.unified_diff(expected.splitlines(), current.splitlines(), lineterm="", n=0)
    return sum(1 for line in diff if line[:1] in "+-" and not line.startswith(("+++", "---")))


async def _undo_file(change: FileChange, sandbox: Sandbox) -> UndoStep:
    name = sandbox.display_path(change.path)
    try:
        current: bytes | None = await asyncio.to_thread(change.path.read_bytes)
    except FileNotFoundError:
        current = None
    if current != change.after:
        if current is None:
            return UndoStep.kept(name, "it was deleted after the agent wrote it; nothing to restore over")
        lost = _changed_lines(change.after.decode("utf-8", "replace"), current.decode("utf-8", "replace"))
        return UndoStep.kept(
            name,
            f"it changed after the agent wrote it ({lost} line(s) differ); undoing would lose "
            "those changes — edit it by hand or ask the agent",
        )
    if change.before is None:
        await asyncio.to_thread(change.path.unlink)
        return UndoStep(done=True, text=f"removed {name} (the agent had created it)")
    await asyncio.to_thread(atomic_write, change.path, change.before)
    return UndoStep(done=True, text=f"restored {name}")


async def _undo_cell(change: CellChange, ctx: ToolContext) -> UndoStep:
    from ..notebook.undo import undo_cell_change

    return await undo_cell_change(change, ctx)


async def undo_run(journal: RunJournal, ctx: ToolContext) -> str:
    lines = [f"undo run {journal.run_id}:"]
    all_done = True
    for change in reversed(journal.changes):
        if isinstance(change, FileChange):
            step = await _undo_file(change, ctx.sandbox)
        else:
            step = await _undo_cell(change, ctx)
        all_done = all_done and step.done
        lines.append(f"  {step.text}")
        if isinstance(change, FileChange):
            ctx.reads.forget(str(change.path))
    journal.undone = all_done
    if not all_done:
        lines.append("some changes were kept (see above); run %agent undo again after resolving them")
    return "\n".join(lines)
