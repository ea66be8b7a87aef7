"""`Notebook`: the one interface the notebook tools use, whatever holds the notebook (the browser or the file).

A backend implements `apply` — a batch of ops, one round trip for the live notebook — and the helpers
below turn single ops into values or `NotebookError`s, so tools read like the operation they perform.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .cells import Cell, CellType
from .ops import (
    GetCells,
    Insert,
    NotebookError,
    Op,
    OpResult,
    SetOutputs,
    raise_for,
)


class Notebook(ABC):
    """A notebook addressed by cell ids. `path` is its real path on disk (where it is, or would be, saved)."""

    #: True when edits go to the notebook open in JupyterLab (the file on disk is left to the user's save).
    live: bool = False

    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def name(self) -> str:
        return self.path.name

    @abstractmethod
    async def apply(self, ops: Sequence[Op]) -> list[OpResult]:
        """Run `ops` in order; one result per op. A failed op changes nothing and the next one still runs."""

    async def cells(self) -> list[Cell]:
        (result,) = await self.apply([GetCells()])
        return list(raise_for(result).cells)

    async def cell(self, cell_id: str) -> tuple[int, Cell]:
        """The cell's index and value, or `CELL_NOT_FOUND` naming the notebook and the fix."""
        cells = await self.cells()
        for index, cell in enumerate(cells):
            if cell.id == cell_id:
                return index, cell
        raise self.not_found(cell_id, cells)

    def not_found(self, cell_id: str, cells: Sequence[Cell] = ()) -> NotebookError:
        """`CELL_NOT_FOUND`; for an id that is a position the model saw (`"3"`, NotebookRead's `index="3"`), the
        id of the cell there, which it probably meant."""
        position = cell_id.strip().lstrip("#")
        if position.isdigit() and 1 <= int(position) <= len(cells):
            meant = cells[int(position) - 1]
            return NotebookError(
                "CELL_NOT_FOUND",
                f"no cell with id '{cell_id}' in {self.name}; cells are addressed by id, not position: position "
                f"{int(position)} is cell '{meant.id}' (a {meant.cell_type} cell); pass cell_id '{meant.id}' if that is "
                "the one",
            )
        return NotebookError(
            "CELL_NOT_FOUND",
            f"no cell with id '{cell_id}' in {self.name}; call NotebookRead for the current ids",
        )

    async def _one(self, op: Op) -> OpResult:
        (result,) = await self.apply([op])
        return raise_for(result)

    async def insert(self, after_id: str | None, cell_type: CellType, source: str) -> OpResult:
        """A new cell after `after_id` (None: first); the result's `id` and `index` say where it is."""
        return await self._one(Insert(after_id=after_id, cell_type=cell_type, source=source))

    async def set_outputs(
        self, cell_id: str, outputs: Sequence[Mapping[str, Any]], execution_count: int | None
    ) -> OpResult:
        return await self._one(
            SetOutputs(id=cell_id, outputs=tuple(outputs), execution_count=execution_count)
        )
