"""NotebookRead: the cells of this kernel's notebook (or another one) with ids, as the model edits them by id.

The live notebook is read from the page (unsaved changes included). Every cell whose full source is
returned is recorded in the read ledger, which NotebookEdit checks before it changes or deletes a cell.
"""

from __future__ import annotations

from ...base.result import ToolResult
from ...base.sandbox import cap_text
from ...notebook.cells import Cell
from ...tools.context import ToolContext
from ...tools.core import READ_ONLY, ToolInput
from .common import NotebookPathTool, find, ledger_key, open_notebook, shown, where_read
from .view import ImageBudget, render_full, render_notebook_view

DESCRIPTION = """\
Read a Jupyter notebook's cells: ids, types, execution counts, sources and outputs (cut to a budget; \
images as image blocks; errors whole).
- Without notebook_path it reads the notebook this kernel belongs to — the one the user is working in, \
live from JupyterLab when it is open there (unsaved changes included); in VS Code, or where no page with \
the jupyter-agent extension answers, its saved file (the result says which).
- Cells are addressed by id (e.g. "3f2a9c1b"), never by position; NotebookEdit and RunCell take these ids.
- A large notebook comes back as an outline (ids and first lines); call NotebookRead with cell_id for a \
full cell.
- Read a cell before NotebookEdit replaces or deletes it."""


class NotebookReadInput(ToolInput):
    notebook_path: str | None = None
    """The notebook to read, absolute or relative to the notebook's directory. Omit it for this kernel's notebook."""
    cell_id: str | None = None
    """Read only this cell (full source and more of its outputs)."""


class NotebookRead(NotebookPathTool[NotebookReadInput]):
    name = "NotebookRead"
    description = DESCRIPTION
    kind = "read"
    annotations = READ_ONLY
    Input = NotebookReadInput

    async def run(self, params: NotebookReadInput, ctx: ToolContext) -> ToolResult:
        book = await open_notebook(ctx, params.notebook_path)
        cells = await book.cells()
        name = shown(ctx, book)
        where = where_read(ctx, book)
        images = ImageBudget(max_bytes=ctx.sandbox.limits.max_image_bytes)
        data = {"path": str(book.path), "cells": len(cells), "live": book.live}
        if params.cell_id is not None:
            index, cell = find(cells, params.cell_id, book)
            text = render_full(
                cell, index, text_chars=ctx.sandbox.limits.max_output_chars // 2, images=images
            )
            ctx.reads.record(ledger_key(book, cell.id), cell.source)
            return ToolResult.ok(
                f"Cell {index + 1} of {len(cells)} in '{name}' ({where}):\n{text}",
                summary=f"Read cell {cell.id} of {name}",
                images=tuple(images.images),
                data=data,
            )
        count = f"{len(cells)} cell{'s' if len(cells) != 1 else ''}"
        header = f"Notebook '{name}' ({where}, {count})"
        running = _running_line(ctx, params.notebook_path, cells)
        if not cells:
            return ToolResult.ok(f"{header} has no cells.", summary=f"Read {name} (no cells)", data=data)
        body, whole = render_notebook_view(cells, images=images)
        if whole:
            for cell in cells:
                ctx.reads.record(ledger_key(book, cell.id), cell.source)
            text = f"{header}{running}:\n{body}"
            summary = f"Read {name} ({count})"
        else:
            text = (
                f"{header}{running} is too large to show whole; here is an outline (position, id, type, first line). "
                f"Call NotebookRead with cell_id for a full cell.\n"
                + cap_text(body, ctx.sandbox.limits.max_output_chars)
            )
            summary = f"Read {name} (outline of {len(cells)} cells)"
        return ToolResult.ok(text, summary=summary, images=tuple(images.images), data=data)


def _running_line(ctx: ToolContext, notebook_path: str | None, cells: list[Cell]) -> str:
    """`; the running %%agent cell is 'ask' (position 3)` when this kernel's notebook shows it."""
    running = ctx.run.running_cell_id
    if notebook_path is not None or running is None:
        return ""
    position = next((i for i, cell in enumerate(cells) if cell.id == running), None)
    return "" if position is None else f"; the running %%agent cell is '{running}' (position {position + 1})"
