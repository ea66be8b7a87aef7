"""NotebookRead: the cells of this kernel's notebook (or another one) with ids, as the model edits them by id.

The live notebook is read from the page (unsaved changes included). Every cell whose full source is
returned is recorded in the read ledger, which NotebookEdit checks before it changes or deletes a cell.
"""

from __future__ import annotations

from ...base.errors import ToolError
from ...base.result import ToolResult
from ...masking import cap_text
from ...notebook.base import Notebook
from ...notebook.cells import Cell
from ...notebook.provider import LIVE_PAGE_NOTE
from ...tools.context import ToolContext
from ...tools.core import READ_ONLY, ToolInput
from .common import NotebookPathTool, cell_named, find, ledger_key, open_notebook, shown, where_read
from .view import CELL_OUTPUT_CHARS, ImageBudget, render_full, render_notebook_view

DESCRIPTION = """\
Read a Jupyter notebook's cells: ids, types, execution counts, sources and outputs (cut to a budget; \
images as image blocks; errors whole).
- Without notebook_path it reads the notebook this kernel belongs to — the one the user is working in, \
live from JupyterLab when it is open there (unsaved changes included); in VS Code, or where no page with \
the jupyter-agent extension answers, its saved file (the result says which). Prefer it to Read for this \
kernel's notebook: the file on disk may be behind the page.
- Cells are addressed by id (e.g. "3f2a9c1b"), never by position; NotebookEdit and RunCell take these ids.
- A large notebook comes back as an outline: each cell's position, id, type, first line, and its outputs' \
kind and size. Then pass cell_ids (a list) to read several cells whole, with their outputs, in one call, or \
cell_id for one.
- Read a cell before NotebookEdit replaces or deletes it."""


class NotebookReadInput(ToolInput):
    notebook_path: str | None = None
    """The notebook to read, absolute or relative to the working directory. Omit it for this kernel's notebook."""
    cell_id: str | None = None
    """Read only this cell (full source and more of its outputs)."""
    cell_ids: list[str] | None = None
    """Read these cells (full sources and outputs), in notebook order, in one result; instead of cell_id."""


class NotebookRead(NotebookPathTool[NotebookReadInput]):
    name = "NotebookRead"
    description = DESCRIPTION
    kind = "read"
    annotations = READ_ONLY
    Input = NotebookReadInput

    async def run(self, params: NotebookReadInput, ctx: ToolContext) -> ToolResult:
        wanted = _wanted(params)
        book = await open_notebook(ctx, params.notebook_path)
        cells = await book.cells()
        if wanted is not None:
            return _some_cells(ctx, book, cells, wanted)
        name = shown(ctx, book)
        where = where_read(ctx, book)
        images = ImageBudget(max_bytes=ctx.sandbox.limits.max_image_bytes)
        data = {"path": str(book.path), "cells": len(cells), "live": book.live}
        count = f"{len(cells)} cell{'s' if len(cells) != 1 else ''}"
        header = f"Notebook '{name}' ({where}, {count}{_running_note(ctx, params.notebook_path, cells)})"
        if not cells:
            return ToolResult.ok(f"{header} has no cells.", summary=f"Read {name} (no cells)", data=data)
        body, whole = render_notebook_view(cells, images=images)
        if whole:
            for cell in cells:
                ctx.reads.record(ledger_key(book, cell.id), cell.source)
            text = f"{header}:\n{body}"
            summary = f"Read {name} ({count})"
        else:
            text = (
                f"{header} is too large to show whole; here is an outline (position, id, type, first line, "
                "outputs). Call NotebookRead with cell_ids for the cells you need, whole with their outputs.\n"
                + cap_text(body, ctx.sandbox.limits.max_output_chars)
            )
            summary = f"Read {name} (outline of {len(cells)} cells)"
        return ToolResult.ok(text, summary=summary, images=tuple(images.images), data=data)


def _wanted(params: NotebookReadInput) -> list[str] | None:
    """The ids asked for, or None for the whole notebook; `INVALID_ARGS` for both forms or an empty list."""
    if params.cell_ids is not None and params.cell_id is not None:
        raise ToolError("INVALID_ARGS", "pass cell_id (one cell) or cell_ids (several), not both")
    if params.cell_ids is not None and not params.cell_ids:
        raise ToolError(
            "INVALID_ARGS",
            "cell_ids is empty; list the ids of the cells to read, or omit it for the notebook",
        )
    if params.cell_id is not None:
        return [params.cell_id]
    return None if params.cell_ids is None else list(dict.fromkeys(params.cell_ids))


def _some_cells(ctx: ToolContext, book: Notebook, cells: list[Cell], wanted: list[str]) -> ToolResult:
    """The cells asked for, whole with their outputs, in notebook order; the output budget shared among them."""
    found = sorted((find(cells, cell_id, book) for cell_id in wanted), key=lambda pair: pair[0])
    name = shown(ctx, book)
    images = ImageBudget(max_bytes=ctx.sandbox.limits.max_image_bytes)
    text_chars = max(ctx.sandbox.limits.max_output_chars // 2 // len(found), CELL_OUTPUT_CHARS)
    pieces = [render_full(cell, index, text_chars=text_chars, images=images) for index, cell in found]
    for _, cell in found:
        ctx.reads.record(ledger_key(book, cell.id), cell.source)
    positions = [str(index + 1) for index, _ in found]
    if len(found) == 1:
        head, summary = (
            f"Cell {positions[0]} of {len(cells)}",
            f"Read {cell_named(found[0][0], found[0][1].id, found[0][1].source)} of {name}",
        )
    else:
        head, summary = f"Cells {', '.join(positions)} of {len(cells)}", f"Read {len(found)} cells of {name}"
    data = {"path": str(book.path), "cells": len(cells), "live": book.live}
    where = where_read(ctx, book)
    source = "" if where == LIVE_PAGE_NOTE else f" ({where})"
    return ToolResult.ok(
        f"{head} in '{name}'{source}:\n" + "\n".join(pieces),
        summary=summary,
        images=tuple(images.images),
        data=data,
    )


def _running_note(ctx: ToolContext, notebook_path: str | None, cells: list[Cell]) -> str:
    """`; the running %%agent cell is 'ask' at position 3` when this kernel's notebook shows it."""
    running = ctx.run.running_cell_id
    if notebook_path is not None or running is None:
        return ""
    position = next((i for i, cell in enumerate(cells) if cell.id == running), None)
    return "" if position is None else f"; the running %%agent cell is '{running}' at position {position + 1}"
