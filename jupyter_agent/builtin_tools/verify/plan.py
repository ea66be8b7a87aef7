"""Which cells a verification runs, and with what source: the notebook as a fresh kernel would see it.

The agent's own cells are not part of the notebook's computation: a `%%agent` cell is skipped whole (it
would call the model), and a `%agent …` line inside other code becomes `pass` with the same indentation,
so the cell's other lines keep their numbers in a traceback. A code cell left with nothing but such lines
is skipped too. Markdown and raw cells never run; empty code cells are listed as `empty`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ...base.errors import ToolError
from ...notebook.cells import Cell

#: `%agent` or `%%agent` as the magic itself, not `%agents` or `%agent_x`.
_CELL_MAGIC = re.compile(r"^\s*%%agent(?:\s|$)")
_LINE_MAGIC = re.compile(r"^(\s*)%agent(?:\s|$)")

Disposition = Literal["run", "agent", "empty"]


@dataclass(frozen=True, kw_only=True)
class PlannedCell:
    """One code cell of the notebook: its position (1-based, among all cells), what runs, and why not."""

    id: str
    position: int
    source: str
    #: `run`; `agent` (a `%%agent` cell, or only `%agent` lines); `empty` (nothing to run).
    disposition: Disposition
    first_line: str


def runnable_source(source: str) -> tuple[str, bool]:
    """The source with each `%agent …` line turned into `pass`; and whether anything else is left to run."""
    lines = source.splitlines(keepends=True)
    kept: list[str] = []
    other = False
    for line in lines:
        match = _LINE_MAGIC.match(line)
        if match is None:
            kept.append(line)
            other = other or (bool(line.strip()) and not line.lstrip().startswith("#"))
        else:
            ending = "\n" if line.endswith("\n") else ""
            kept.append(f"{match.group(1)}pass  # %agent line skipped by verification{ending}")
    return "".join(kept), other


def plan_cells(cells: Sequence[Cell], until_cell_id: str | None, notebook: str) -> list[PlannedCell]:
    """The code cells to go through, in order, up to and including `until_cell_id` (CELL_NOT_FOUND if absent,
    INVALID_ARGS if it is not a code cell)."""
    if until_cell_id is not None:
        target = next((cell for cell in cells if cell.id == until_cell_id), None)
        if target is None:
            raise ToolError(
                "CELL_NOT_FOUND",
                f"no cell with id '{until_cell_id}' in {notebook}; call NotebookRead for the current ids",
            )
    planned: list[PlannedCell] = []
    for position, cell in enumerate(cells, start=1):
        if cell.cell_type == "code":
            planned.append(_plan(cell, position))
        if cell.id == until_cell_id:
            break
    return planned


def _plan(cell: Cell, position: int) -> PlannedCell:
    first = cell.first_line
    if _CELL_MAGIC.match(cell.source.lstrip("\n")):
        return PlannedCell(
            id=cell.id, position=position, source=cell.source, disposition="agent", first_line=first
        )
    source, other = runnable_source(cell.source)
    if not other:
        has_agent_line = source != cell.source
        disposition: Disposition = "agent" if has_agent_line else "empty"
        return PlannedCell(
            id=cell.id, position=position, source=source, disposition=disposition, first_line=first
        )
    return PlannedCell(id=cell.id, position=position, source=source, disposition="run", first_line=first)
