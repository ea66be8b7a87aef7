"""Undoing a NotebookEdit (`%agent undo`): apply the journaled inverse ops, guarded like any edit.

`CellChange.inverse` is `{"ops": [wire ops], "live": bool}`: inserting is undone by deleting the new cell
(expecting the source the agent wrote), replacing by putting the old source (and type, and cleared outputs)
back (expecting the agent's source), deleting by restoring the cell's JSON at its index, moving by moving
the cell back after its old neighbour, running it (RunCell) by putting back the outputs it had. A cell the user changed since is
skipped, never overwritten. The notebook is opened fresh through the same rule as the edit
(`notebook.access`): an undo reaches the live page when it is open, and never writes the file of a notebook
a frontend holds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from ..base.confined import confined
from ..base.errors import ToolError
from ..base.journal import CellChange, CellOp, UndoStep
from ..notebook.ops import WireError, op_from_wire
from ..tools.context import ToolContext

DONE: dict[CellOp, str] = {
    "insert": "removed cell {id} from {name} (the agent had inserted it)",
    "replace": "restored cell {id} in {name}",
    "delete": "restored cell {id} in {name} (the agent had deleted it)",
    "move": "moved cell {id} back in {name}",
    "clear_outputs": "put back the outputs of cell {id} in {name}",
    "run": "put back the outputs cell {id} had before the agent ran it in {name}",
}
#: The usual reasons a cell is kept, in the user's terms; any other refusal is told in the engine's words.
_SKIPPED: dict[WireError | None, str] = {
    "STALE_READ": "it changed after the agent edited it; undoing would lose those changes — edit it by hand "
    "or ask the agent",
    "CELL_NOT_FOUND": "it is no longer in the notebook",
    "CELL_EXISTS": "it is already back in the notebook",
}


async def undo_cell_change(change: CellChange, ctx: ToolContext) -> UndoStep:
    """What happened, in one line; `done` is False when the change was kept."""
    name = Path(change.notebook).name
    subject = f"cell {change.cell_id} in {name}"
    provider = ctx.services.notebooks
    try:
        ops = [op_from_wire(raw) for raw in cast(list[dict[str, Any]], change.inverse.get("ops", []))]
        # The path the edit recorded (a real path) must still be one: a notebook or folder swapped for a link
        # since would send the restore elsewhere (`base.confined`).
        recorded = confined(Path(change.notebook), (Path(change.notebook).parent,), exact=True)
        access = await provider.open_for_write(recorded)  # the one rule, as for the edit itself
        if access.decision.kind == "proposal":
            return UndoStep.kept(
                subject, f"{access.decision.reason}; undo it there (Ctrl+Z, or edit the cell)"
            )
        book = access.book
        if not book.live:  # a file is written: it must be the recorded one, inside the roots, now
            confined(book.path, ctx.sandbox.roots, exact=True)
        results = await book.apply(ops)
    except ToolError as exc:
        return UndoStep.kept(subject, exc.message)
    except ValueError as exc:
        return UndoStep.kept(subject, f"its undo record is not usable ({exc})")
    failed = next((r for r in results if not r.ok), None)
    if failed is not None:
        return UndoStep.kept(subject, _SKIPPED.get(failed.error, failed.message))
    ctx.reads.forget(f"{book.path}#{change.cell_id}")
    return UndoStep(done=True, text=DONE[change.op].format(id=change.cell_id, name=name))
