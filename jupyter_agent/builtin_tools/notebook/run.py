"""RunCell: run code cells of this kernel's notebook in this kernel, like Shift+Enter, and show the outputs.

The cell's current source runs on the kernel's main thread with RunCode's capture (`CodeRun`); the outputs
and the execution count are written back into the cell (live: into the page; else into the file), and the
model gets them capped. Each cell gets the kernel's next execution count, as if the user had run it
(`cell_run._take_execution_count`), so no two cells share a number.

Several cells (`cell_ids`, in notebook order, or a `range` of the notebook relative to `cell_id`) are one call
and one approval; they run one at a time through the same single-cell path and stop at the first error or
interrupt (`run_batch`).
"""

from __future__ import annotations

from typing import Literal

from ...base.agent_cells import is_agent_cell
from ...base.errors import ToolError
from ...base.result import ToolResult
from ...notebook.base import Notebook
from ...notebook.cells import Cell
from ...tools.context import ToolContext
from ...tools.core import PendingCell, Preview, Tool, ToolAnnotations, ToolInput
from ..kernel.journal.calls import call_note
from .cell_run import CELL_OUTPUTS_KEY, run_one
from .common import find, open_notebook
from .run_batch import run_batch

__all__ = ["CELL_OUTPUTS_KEY", "RunCell", "RunCellInput"]

DESCRIPTION = """\
Run code cells of the user's notebook (this kernel's notebook) in this kernel, as if the user pressed \
Shift+Enter: it runs the cell's current source in the user's namespace, its outputs are written into the \
cell, and you get them back (printed text, displayed values and images, the traceback if it raised).
- cell_id is the id NotebookRead shows. Only code cells run; %%agent cells (the running one included) are \
refused before anything is asked or run.
- To run several cells in one call (one approval), give cell_ids instead, in notebook order: they run one \
at a time, and the first that raises (or an interrupt) stops the rest; the result says which ran, which \
failed and which did not run.
- range with cell_id runs a part of the notebook the same way: "above" the code cells above that cell (not \
the cell itself), "below" that cell and the code cells below it; empty and %%agent cells are skipped.
- Where the notebook cannot be changed from here (VS Code, a page without the extension), it runs the \
cell's saved source and shows the outputs in the %%agent cell instead; the result says which.
- The user is asked before it runs unless a rule allows it. To run code that is not in a cell, use RunCode."""


class RunCellInput(ToolInput):
    cell_id: str | None = None
    """The id of the code cell to run (from NotebookRead); or give cell_ids."""
    cell_ids: list[str] | None = None
    """Several code cells to run one after the other, in notebook order (instead of cell_id)."""
    range: Literal["above", "below"] | None = None
    """With cell_id: "above" runs the code cells above it, "below" runs it and the code cells below it."""


class RunCell(Tool[RunCellInput]):
    name = "RunCell"
    description = DESCRIPTION
    kind = "execute"
    annotations = ToolAnnotations(read_only=False, destructive=True)
    Input = RunCellInput

    def title(self, params: RunCellInput, ctx: ToolContext) -> str:
        if params.range == "above":
            return f"RunCell above {params.cell_id}"
        if params.range == "below":
            return f"RunCell {params.cell_id} and below"
        return f"RunCell {', '.join(requested_ids(params))}"

    async def preview(self, params: RunCellInput, ctx: ToolContext) -> Preview:
        book = await open_notebook(ctx, None)
        cells = await cells_to_run(ctx, book, params)
        at_cells = tuple(
            PendingCell(notebook=str(book.path), change="run", cell_id=cell.id, before=cell.source)
            for cell in (cells if book.live else [])
        )
        note = call_note(ctx, [cell.source for cell in cells])
        if not is_batch(params):
            return Preview(kind="code", text=cells[0].source, language="python", cells=at_cells, note=note)
        return Preview(
            kind="code",
            text="\n\n".join(f"# cell {cell.id}\n{cell.source}" for cell in cells),
            language="python",
            cells=at_cells,
            note=note,
        )

    async def run(self, params: RunCellInput, ctx: ToolContext) -> ToolResult:
        book = await open_notebook(ctx, None)
        cells = await cells_to_run(ctx, book, params)
        if not is_batch(params):
            return await run_one(ctx, book, cells[0], ctx.sandbox.limits.max_code_output_chars)
        return await run_batch(ctx, book, cells)


def is_batch(params: RunCellInput) -> bool:
    return params.cell_ids is not None or params.range is not None


async def cells_to_run(ctx: ToolContext, book: Notebook, params: RunCellInput) -> list[Cell]:
    """The code cells the call runs, checked before anything runs."""
    if params.range is None:
        return await code_cells(book, requested_ids(params), running=ctx.run.running_cell_id)
    if params.cell_id is None or params.cell_ids is not None:
        raise ToolError(
            "INVALID_ARGS",
            f"range '{params.range}' goes with cell_id (the cell it is counted from), not with cell_ids",
        )
    cells = await book.cells()
    index, _ = find(cells, params.cell_id, book)
    part = cells[:index] if params.range == "above" else cells[index:]
    # Never an agent cell: running one would start an agent inside this run (the running cell is one too). An
    # empty cell has nothing to run, as JupyterLab's Run All does not send it to the kernel.
    chosen = [
        cell
        for cell in part
        if cell.cell_type == "code" and cell.source.strip() and not is_agent_cell(cell.source)
    ]
    if not chosen:
        where = "above" if params.range == "above" else "at or below"
        raise ToolError(
            "INVALID_ARGS",
            f"there is no code cell to run {where} cell '{params.cell_id}' in {book.name} (%%agent cells are "
            "not run); nothing ran",
        )
    return chosen


def requested_ids(params: RunCellInput) -> list[str]:
    """The ids to run, checked: exactly one of cell_id / cell_ids, no repeats, not empty."""
    if (params.cell_id is None) == (params.cell_ids is None):
        raise ToolError(
            "INVALID_ARGS",
            "give exactly one of cell_id (one cell) or cell_ids (several cells, in notebook order)",
        )
    if params.cell_id is not None:
        return [params.cell_id]
    ids = params.cell_ids or []
    if not ids:
        raise ToolError("INVALID_ARGS", "cell_ids is empty; list at least one cell id (from NotebookRead)")
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise ToolError(
            "INVALID_ARGS",
            f"cell_ids lists {', '.join(repr(i) for i in repeated)} more than once; list each once",
        )
    return list(ids)


async def code_cells(book: Notebook, ids: list[str], *, running: str | None = None) -> list[Cell]:
    """The cells, found and checked before anything runs (and before the user is asked): in notebook order, all
    of them code cells, none an `%%agent` cell."""
    found = [await book.cell(cell_id) for cell_id in ids]
    positions = [index for index, _ in found]
    if positions != sorted(positions):
        order = ", ".join(cell.id for _, cell in sorted(found, key=lambda pair: pair[0]))
        raise ToolError(
            "INVALID_ARGS",
            f"cell_ids must be in notebook order; in {book.name} they stand in this order: {order}",
        )
    for _, cell in found:
        if cell.cell_type != "code":
            raise ToolError(
                "INVALID_ARGS",
                f"cell '{cell.id}' is a {cell.cell_type} cell; only code cells run (RunCode runs code that is "
                "not in a cell)" + ("; nothing ran" if len(found) > 1 else ""),
            )
        if is_agent_cell(cell.source):
            which = "the %%agent cell running you" if cell.id == running else "an %%agent cell"
            raise ToolError(
                "INVALID_ARGS",
                f"cell '{cell.id}' is {which}; RunCell does not run %%agent cells (a run cannot start "
                "another). Nothing ran; run the code cells themselves, or RunCode",
            )
    return [cell for _, cell in found]
