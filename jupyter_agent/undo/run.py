"""`%agent undo`: revert one run's changes, newest first — unless something changed since the agent wrote it.

Refusing is per item: what the user changed afterwards is never lost to an undo; the message says what
undoing would have thrown away.
"""

from __future__ import annotations

from pathlib import Path

from ..base.journal import CellChange, Change, FileChange, RunJournal, UndoStep
from ..base.sandbox import Sandbox
from ..tools.context import ToolContext
from .cells import DONE, undo_cell_change
from .files import undo_file_change
from .notebooks import restore_notebook_files, what_stays
from .variables import undo_run_variables


def describe_change(change: Change, sandbox: Sandbox) -> str:
    if isinstance(change, FileChange):
        verb = "created" if change.before is None else "changed"
        return f"{change.tool}: {verb} {sandbox.display_path(change.path)}"
    return f"{change.tool}: {change.op} cell {change.cell_id} in {Path(change.notebook).name}"


async def undo_run(journal: RunJournal, ctx: ToolContext, *, force: bool = False) -> str:
    """Undo the run's changes; `force` also puts back variables undo could not check (`%agent undo --force`)."""
    lines = [f"undo run {journal.run_id}:"]
    all_done = True
    reviewed: set[str] = set()
    restored = await restore_notebook_files(journal, ctx)  # byte for byte where nobody changed them since
    for change in reversed(journal.changes):
        key = str(change.path) if isinstance(change, FileChange) else f"{change.notebook}#{change.cell_id}"
        if journal.review.get(key) == "undone":
            reviewed.add(key)  # undone on its own in the review already
            continue
        try:
            step = await _undo_one(change, restored, ctx)
        except Exception as exc:  # one step that fails never stops the older ones (nor shows a traceback)
            what = describe_change(change, ctx.sandbox)
            step = UndoStep.kept(
                what, f"undoing it failed ({type(exc).__name__}: {exc}); nothing of it was changed"
            )
        all_done = all_done and step.done
        lines.append(f"  {step.text}")
    if reviewed:
        lines.append(f"  {len(reviewed)} change(s) had been undone in the review already")
    for path, write in journal.notebook_files.items():
        if path not in restored and (left := what_stays(path, write, ctx.sandbox.roots)) is not None:
            lines.append(f"  {left}")
    variables, variables_done = undo_run_variables(
        journal, ctx, force=force
    )  # the kernel's, after the files and cells
    lines += [f"  {line}" for line in variables]
    all_done = all_done and variables_done
    journal.undone = all_done
    if all_done:
        journal.review.clear()  # every change is back: the review shows the run as undone
    if not all_done:
        lines.append("some changes were kept (see above); run %agent undo again after resolving them")
    return "\n".join(lines)


async def _undo_one(change: Change, restored: set[Path], ctx: ToolContext) -> UndoStep:
    if isinstance(change, FileChange):
        step = await undo_file_change(change, ctx.sandbox)
        ctx.reads.forget(str(change.path))
        return step
    if Path(change.notebook) in restored:
        return _restored(change, ctx)
    return await undo_cell_change(change, ctx)


def _restored(change: CellChange, ctx: ToolContext) -> UndoStep:
    """A cell change undone by putting the notebook file's bytes back (restore_notebook_files)."""
    ctx.reads.forget(f"{change.notebook}#{change.cell_id}")
    return UndoStep(
        done=True, text=DONE[change.op].format(id=change.cell_id, name=Path(change.notebook).name)
    )
