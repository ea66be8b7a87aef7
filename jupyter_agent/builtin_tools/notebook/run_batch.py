"""RunCell with `cell_ids`: several cells, one approval, run one at a time until the first one fails.

Each cell goes through the single-cell path (`cell_run.run_one`: outputs written into the cell, the `%%agent`
cell's execution count), with a share of the output limit (`max_code_output_chars / n`, at least 2,000), so a
batch's result stays about as large as one cell's. The first error, timeout or interrupt stops the batch:
the later cells are not run, and the result says which cells ran, which failed and which did not run, then
each ran cell's output (the failing cell's traceback included).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ...base.errors import ToolError
from ...base.result import ToolResult
from ...base.stopping import current_stop
from ...notebook.base import Notebook
from ...notebook.cells import Cell
from ...tools.context import ToolContext
from .cell_run import CELL_OUTPUTS_KEY, run_one

#: The least output a cell of a batch may show, however many cells the batch has.
MIN_CELL_CHARS = 2_000


def cell_share(max_output_chars: int, cells: int) -> int:
    return max(max_output_chars // max(cells, 1), MIN_CELL_CHARS)


async def run_batch(ctx: ToolContext, book: Notebook, cells: list[Cell]) -> ToolResult:
    share = cell_share(ctx.sandbox.limits.max_code_output_chars, len(cells))
    ran: list[tuple[Cell, ToolResult]] = []
    failed: ToolResult | None = None
    for cell in cells:
        try:
            result = await run_one(ctx, book, cell, share)
        except ToolError as exc:  # a cell stuck where Python cannot interrupt it
            result = ToolResult.error(exc.code, exc.message, summary=exc.code)
        ran.append((cell, result))
        if result.is_error or current_stop().requested:
            failed = result if result.is_error else None
            break
    not_run = [cell.id for cell in cells[len(ran) :]]
    lines = [_status_line(cell, result) for cell, result in ran]
    lines += [f"not run: {cell_id}" for cell_id in not_run]
    sections = [f"--- cell {cell.id} ---\n{result.content}" for cell, result in ran]
    ran_ids = [cell.id for cell, result in ran if not result.is_error]
    data: dict[str, Any] = {
        "cell_ids": [cell.id for cell in cells],
        "ran": ran_ids,
        "failed": [cell.id for cell, result in ran if result.is_error],
        "not_run": not_run,
    }
    if any(result.data.get("interrupted") for _, result in ran):
        data["interrupted"] = True
    outputs = [result.data[CELL_OUTPUTS_KEY] for _, result in ran if CELL_OUTPUTS_KEY in result.data]
    if outputs:
        data[CELL_OUTPUTS_KEY] = outputs  # one entry per cell whose outputs are shown under the call
    images = tuple(image for _, result in ran for image in result.images)
    content = "\n".join(lines) + "\n\n" + "\n\n".join(sections)
    summary = f"Ran {len(ran_ids)} of {len(cells)} cells" + (
        f"; {ran[-1][0].id} failed: {failed.summary}" if failed is not None else ""
    )
    if failed is None:
        return ToolResult.ok(content, summary=summary, images=images, data=data)
    return dataclasses.replace(
        ToolResult.error(failed.error_code or "EXECUTION_ERROR", content, summary=summary),
        images=images,
        data=data,
    )


def _status_line(cell: Cell, result: ToolResult) -> str:
    if not result.is_error:
        return f"ran {cell.id} ({result.summary.removeprefix(f'Ran cell {cell.id}: ')})"
    why = result.summary.removeprefix(f"Ran cell {cell.id}: ")
    return f"failed {cell.id}: {why}"
