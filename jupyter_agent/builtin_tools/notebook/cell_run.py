"""One cell run the way RunCell runs it: on the kernel's main thread with RunCode's capture, its outputs and
the execution count it really got written back into the cell (or shown under the call where the notebook
cannot take them), the result capped. `run.RunCell` runs one; `run_batch` runs several in turn."""

from __future__ import annotations

import dataclasses
from typing import Any

from ...base.errors import ToolError
from ...base.result import ToolResult
from ...masking import cap_text
from ...notebook.base import Notebook
from ...notebook.cells import Cell
from ...notebook.ops import SetOutputs
from ...tools.context import ToolContext
from ...tools.scope import ExecutionCountTaken
from ..kernel.execution import CodeRun
from ..kernel.journal.calls import watch_call
from ..kernel.journal.notes import result_note
from ..kernel.main_thread import main_thread_of
from ..kernel.runcode import outcome_result, run_on_main
from ..kernel.variables import user_namespace
from .cell_outputs import CellOutputs
from .common import journal_cell_change, ledger_key, open_for_write, require_fresh, shown, where_read

#: The key of `ToolResult.data` with the nbformat outputs of a cell whose notebook could not take them.
CELL_OUTPUTS_KEY = "cell_outputs"


async def run_one(ctx: ToolContext, book: Notebook, cell: Cell, max_chars: int) -> ToolResult:
    """Run one cell as the user's Shift+Enter would, its outputs written back; the result capped at
    `max_chars` (the whole limit for one cell, a share of it in a batch)."""
    main = main_thread_of(ctx, "RunCell")
    namespace = user_namespace(ctx, "RunCell")
    unread = cap_text(_unread_note(ctx, book, cell), max_chars // 4)
    shell = ctx.services.shell
    count = _take_execution_count(ctx)
    limits = ctx.sandbox.limits
    seconds = limits.max_timeout
    watch = watch_call(ctx, namespace, f"RunCell cell {cell.id}")
    job = CodeRun(
        cell.source,
        namespace,
        shell=shell,
        timeout=seconds,
        max_chars=max_chars - max_chars // 4,  # the log's one cut; the unread note has the rest
        max_image_bytes=limits.max_image_bytes,
        reraise_interrupt=True,
        watch=watch,
        origin=f"RunCell (cell '{cell.id}')",
    )
    log = CellOutputs(
        max_chars=max_chars - max_chars // 4,
        max_image_bytes=limits.max_image_bytes,
        execution_count=count,
    )
    job.log = log  # RunCode's capture, also keeping nbformat outputs for the cell
    outcome = await run_on_main(main, job, seconds=seconds, what=f"cell '{cell.id}'")
    outputs = log.with_error(outcome)
    written, not_written = await _write_back(ctx, cell, outputs, count)
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
        content=result.content + footer + unread + result_note(watch.step, watch.failure),
        summary=f"Ran cell {cell.id}: {result.summary}",
        data=data,
    )


def _take_execution_count(ctx: ToolContext) -> int | None:
    """The count this cell really gets: the kernel's next one, as if the user ran it, so two cells of a run never
    share a number. While the `%%agent` cell runs, IPython's counter already points past it, and when it ends
    the cell is reported as the counter minus one; so the first cell of a run skips one count, which the agent
    cell's reply then takes, and each later cell takes that one and keeps the next (None outside a kernel)."""
    shell = ctx.services.shell
    following = getattr(shell, "execution_count", None)
    if not isinstance(following, int):
        return None
    if ctx.run.execution_count_taken:
        count = following - 1
    else:
        count = following
        ctx.run.record(ExecutionCountTaken())
    shell.execution_count = count + 2
    return count


def _unread_note(ctx: ToolContext, book: Notebook, cell: Cell) -> str:
    """The source that runs, when the model has not seen it as it is (the user may have changed it)."""
    try:
        require_fresh(ctx, book, cell)
        return ""
    except ToolError:
        ctx.reads.record(ledger_key(book, cell.id), cell.source)
        return f"\nThe source that ran, which you had not read as it is now:\n{cell.source}"


async def _write_back(
    ctx: ToolContext, cell: Cell, outputs: list[dict[str, Any]], count: int | None
) -> tuple[str, str | None]:
    """Put the outputs into the cell where the notebook may be written (`notebook.access`): what happened, and
    why they are not in the notebook (None: they are; otherwise the run view shows them under the call).

    The outputs the cell had are journaled, so an undo at the cell (the review) puts them back with its source."""
    try:
        access = await open_for_write(ctx, None)
    except ToolError as exc:
        why: str | None = exc.message
    else:
        why = access.decision.reason if access.decision.kind == "proposal" else None
        if why is None:
            try:
                done = await access.book.set_outputs(cell.id, outputs, count)
            except ToolError as exc:
                return f"its outputs could not be written into the cell: {exc.message}", None
            if done.ok:
                before = SetOutputs(
                    id=cell.id, outputs=cell.outputs, execution_count=cell.execution_count, expect=cell.source
                )
                journal_cell_change(
                    ctx, access.book, "run", cell.id, [before], cell.source, "RunCell", index=done.index
                )
            return "its outputs are now in the notebook", None
    return f"its outputs are shown in this %%agent cell's output, not written into the cell: {why}", why
