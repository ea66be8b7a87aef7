"""Read of an `.ipynb` file: its cells with ids, types and outputs (offset/limit count cells).

A notebook is mostly outputs (plots as base64), so it may be much bigger than a text file Read takes
whole; the renderer cuts outputs, so the cap here is generous. Each shown cell is recorded in the read
ledger under `<real path>#<cell id>` with its source, for NotebookEdit's read-before-write check.
"""

from __future__ import annotations

from typing import Any

from ...base.errors import ToolError
from ...base.result import ToolResult
from ...tools.context import ToolContext
from .access import Target, remember
from .media import human_size

NOTEBOOK_MAX_BYTES = 64 * 1024 * 1024
OUTPUT_CHARS = 2000
TOTAL_CHARS = 100_000


def _parse(data: bytes, name: str) -> dict[str, Any] | None:
    """The notebook as nbformat v4 JSON with the ids NotebookRead and NotebookEdit use, or None when the file is
    not a notebook (Read then shows it as text).

    The file backend's parser, so a duplicate, invalid or missing id reads the same in both tools.
    """
    from ...notebook.file_backend import parse_notebook

    try:
        return parse_notebook(data, name)
    except ToolError:
        return None


def _own_notebook_note(ctx: ToolContext, where: Target) -> str:
    """For this kernel's own notebook held by a frontend: the file may be behind what the user sees."""
    from ...notebook.access import decide_write

    decision = decide_write(ctx.services.notebooks.frontend, where.real)
    if not decision.own or decision.kind == "file":
        return ""
    return (
        ". This is this kernel's own notebook, and it is open in a frontend: this is its saved file, which may "
        "be behind the page (unsaved edits, the outputs of cells run since the last save). NotebookRead reads "
        "what the user sees"
    )


def read_notebook(
    offset: int | None, limit: int | None, ctx: ToolContext, where: Target
) -> ToolResult | None:
    """The rendered cells, or None when the file is not notebook JSON (Read then shows it as text)."""
    size = where.real.stat().st_size
    if size > NOTEBOOK_MAX_BYTES:
        raise ToolError(
            "FILE_TOO_LARGE",
            f"'{where.shown}' is {human_size(size)}, over the {human_size(NOTEBOOK_MAX_BYTES)} limit for "
            "notebooks; clear its outputs or read one cell's source with Grep",
        )
    # Imported here: the notebook package imports tool modules, and may one day import this package.
    from ...notebook.render import cell_id, language_of, render_notebook, source_of

    data = where.real.read_bytes()
    nb = _parse(data, where.shown)
    if nb is None:
        return None
    start = max(offset or 1, 1) - 1
    budget = min(TOTAL_CHARS, max(ctx.sandbox.limits.max_file_bytes, OUTPUT_CHARS))
    shown = render_notebook(nb, start=start, count=limit, output_chars=OUTPUT_CHARS, total_chars=budget)
    remember(ctx, where, data)
    cells: list[dict[str, Any]] = nb.get("cells", [])
    for index in range(shown.first, shown.last + 1):
        ctx.reads.record(f"{where.key}#{cell_id(cells[index], index)}", source_of(cells[index]))
    header = f"Notebook '{where.shown}' ({language_of(nb)}, {shown.total} cells)"
    if shown.total == 0:
        return ToolResult.ok(f"{header} has no cells.", summary=f"Read {where.shown} (no cells)")
    if shown.last < shown.first:
        return ToolResult.ok(
            f"{header}: offset {start + 1} is past the last cell. Use an offset from 1 to {shown.total}.",
            summary=f"Read {where.shown} (offset past the end)",
        )
    text = f"{header}{_own_notebook_note(ctx, where)}:\n{shown.text}"
    if shown.last + 1 < shown.total:
        text += (
            f"\n\n[Showing cells {shown.first + 1}–{shown.last + 1} of {shown.total}. "
            f"Use offset={shown.last + 2} to read on.]"
        )
    return ToolResult.ok(
        text,
        summary=f"Read {where.shown} (cells {shown.first + 1}–{shown.last + 1} of {shown.total})",
        data={"path": str(where.real), "cells": shown.total},
    )
