"""RunCell: run code cells of this kernel's notebook in this kernel, like Shift+Enter, and show the outputs.

The cell's current source runs on the kernel's main thread with RunCode's capture (`CodeRun`); the outputs
and the execution count are written back into the cell (live: into the page; else into the file), and the
model gets them capped. The execution count is the running `%%agent` cell's own: the kernel's counter is
not advanced, so the numbers in the notebook stay consistent with JupyterLab's.

Several cells (`cell_ids`, in notebook order) are one call and one approval; they run one at a time through
the same single-cell path and stop at the first error or interrupt (`run_batch`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ...base.errors import ToolError
from ...base.result import ToolResult
from ...base.sandbox import cap_text
from ...notebook.base import Notebook
from ...notebook.cells import Cell
from ..context import ToolContext
from ..core import Preview, Tool, ToolAnnotations, ToolInput
from ..kernel.execution import CodeRun
from ..kernel.main_thread import main_thread_of
from ..kernel.runcode import outcome_result, run_on_main
from ..kernel.variables import user_namespace
from .cell_outputs import CellOutputs
from .common import ledger_key, open_for_write, open_notebook, require_fresh, shown, where_read

#: The key of `ToolResult.data` with the nbformat outputs of a cell whose notebook could not take them.
CELL_OUTPUTS_KEY = "cell_outputs"

DESCRIPTION = """\
Run code cells of the user's notebook (this kernel's notebook) in this kernel, as if the user pressed \
Shift+Enter: it runs the cell's current source in the user's namespace, its outputs are written into the \
cell, and you get them back (printed text, displayed values and images, the traceback if it raised).
- cell_id is the id NotebookRead shows. Only code cells run.
- To run several cells in one call (one approval), give cell_ids instead, in notebook order: they run one \
at a time, and the first that raises (or an interrupt) stops the rest; the result says which ran, which \
failed and which did not run.
- Where the notebook cannot be changed from here (VS Code, a page without the extension), it runs the \
cell's saved source and shows the outputs in the %%agent cell instead; the result says which.
- The user is asked before it runs unless a rule allows it. To run code that is not in a cell, use RunCode."""


class RunCellInput(ToolInput):
    cell_id: str | None = None
    """The id of the code cell to run (from NotebookRead); or give cell_ids."""
    cell_ids: list[str] | None = None
    """Several code cells to run one after the other, in notebook order (instead of cell_id)."""


class RunCell(Tool[RunCellInput]):
    name = "RunCell"
    description = DESCRIPTION
    kind = "execute"
    annotations = ToolAnnotations(read_only=False, destructive=True)
    Input = RunCellInput

    def title(self, params: RunCellInput, ctx: ToolContext) -> str:
        return f"RunCell {', '.join(requested_ids(params))}"

    async def preview(self, params: RunCellInput, ctx: ToolContext) -> Preview:
        book = await open_notebook(ctx, None)
        cells = await code_cells(book, requested_ids(params))
        if params.cell_ids is None:
            return Preview(kind="code", text=cells[0].source, language="python")
        return Preview(
            kind="code",
            text="\n\n".join(f"# cell {cell.id}\n{cell.source}" for cell in cells),
            language="python",
        )

    async def run(self, params: RunCellInput, ctx: ToolContext) -> ToolResult:
        book = await open_notebook(ctx, None)
        cells = await code_cells(book, requested_ids(params))
        if params.cell_ids is None:
            return await run_one(ctx, book, cells[0], ctx.sandbox.limits.max_output_chars)
        from .run_batch import run_batch

        return await run_batch(ctx, book, cells)


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


async def code_cells(book: Notebook, ids: list[str]) -> list[Cell]:
    """The cells, found and checked before anything runs: in notebook order, all of them code cells."""
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
    return [cell for _, cell in found]


async def run_one(ctx: ToolContext, book: Notebook, cell: Cell, max_chars: int) -> ToolResult:
    """Run one cell as the user's Shift+Enter would, its outputs written back; the result capped at
    `max_chars` (the whole limit for one cell, a share of it in a batch)."""
    main = main_thread_of(ctx, RunCell.name)
    namespace = user_namespace(ctx, RunCell.name)
    unread = cap_text(_unread_note(ctx, book, cell), max_chars // 4)
    shell = ctx.services.shell
    count: int | None = getattr(shell, "execution_count", None)
    limits = ctx.sandbox.limits
    seconds = limits.max_timeout
    job = CodeRun(
        cell.source,
        namespace,
        shell=shell,
        timeout=seconds,
        max_chars=max_chars // 2,
        max_image_bytes=limits.max_image_bytes,
        reraise_interrupt=True,
    )
    log = CellOutputs(
        max_chars=max_chars // 2,
        max_image_bytes=limits.max_image_bytes,
        execution_count=count,
    )
    job.log = log  # RunCode's capture, also keeping nbformat outputs for the cell
    outcome = await run_on_main(main, job, seconds=seconds, what=f"cell '{cell.id}'")
    outputs = log.with_error(outcome)
    written, not_written = await _write_back(ctx, cell.id, outputs, count)
    result = outcome_result(outcome, seconds=seconds, max_chars=max_chars)
    read_from = where_read(ctx, book)
    source = "" if book.live or read_from == "on disk" else f"; the source that ran was read from {read_from}"
    footer = (
        f"\n[cell '{cell.id}' of {shown(ctx, book)} ran as [{count if count is not None else ' '}]; "
        f"{written}{source}]"
    )
    data: dict[str, Any] = {**result.data, "cell_id": cell.id, "execution_count": count}
    if not_written is not None:  # shown under the call instead
        data[CELL_OUTPUTS_KEY] = {"cell_id": cell.id, "outputs": outputs, "why": not_written}
    return dataclasses.replace(
        result,
        content=result.content + footer + unread,
        summary=f"Ran cell {cell.id}: {result.summary}",
        data=data,
    )


def _unread_note(ctx: ToolContext, book: Notebook, cell: Cell) -> str:
    """The source that runs, when the model has not seen it as it is (the user may have changed it)."""
    try:
        require_fresh(ctx, book, cell)
        return ""
    except ToolError:
        ctx.reads.record(ledger_key(book, cell.id), cell.source)
        return f"\nThe source that ran, which you had not read as it is now:\n{cell.source}"


async def _write_back(
    ctx: ToolContext, cell_id: str, outputs: list[dict[str, Any]], count: int | None
) -> tuple[str, str | None]:
    """Put the outputs into the cell where the notebook may be written (`notebook.access`): what happened, and
    why they are not in the notebook (None: they are; otherwise the run view shows them under the call)."""
    try:
        access = await open_for_write(ctx, None)
    except ToolError as exc:
        why: str | None = exc.message
    else:
        why = access.decision.reason if access.decision.kind == "proposal" else None
        if why is None:
            try:
                await access.book.set_outputs(cell_id, outputs, count)
            except ToolError as exc:
                return f"its outputs could not be written into the cell: {exc.message}", None
            return "its outputs are now in the notebook", None
    return f"its outputs are shown in this %%agent cell's output, not written into the cell: {why}", why
