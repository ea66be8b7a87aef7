"""The semantics of every op on a list of nbformat cell dicts — the file backend's engine.

It follows the labextension's `ops.ts` rule for rule (the protocol doc is the contract): each op checks
everything first (ids, the expected source, the payload) and only then changes the list, so a failed op
leaves the cells as they were and the batch goes on with the next op.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .cells import VALID_ID, Cell, joined, new_cell_id, new_cell_json
from .ops import (
    ClearOutputs,
    Delete,
    GetCells,
    Insert,
    Move,
    NotebookError,
    Op,
    OpResult,
    Replace,
    Restore,
    SetOutputs,
    SetType,
)

CellJson = dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class Applied:
    results: list[OpResult]
    #: Ids of the cells that were created or changed (what must be validated before writing).
    changed: frozenset[str]
    #: Whether anything changed at all (a deletion changes the notebook but leaves no changed cell).
    modified: bool


class _Applier:
    def __init__(self, cells: list[CellJson], name: str) -> None:
        self.cells = cells
        self.name = name
        self.changed: set[str] = set()
        self.modified = False

    def locate(self, cell_id: str) -> int:
        for index, cell in enumerate(self.cells):
            if cell.get("id") == cell_id:
                return index
        raise NotebookError(
            "CELL_NOT_FOUND",
            f"no cell with id '{cell_id}' in {self.name}; call NotebookRead for the current ids",
        )

    def check_expected(self, index: int, expect: str | None) -> None:
        if expect is None:
            return
        current = joined(self.cells[index].get("source", ""))
        if current != expect:
            cell_id = self.cells[index].get("id")
            raise NotebookError(
                "STALE_READ",
                f"cell '{cell_id}' in {self.name} changed since it was read; read it again before editing it",
                current=current,
            )

    def new_id(self, wanted: str | None) -> str:
        taken = {c.get("id") for c in self.cells}
        if wanted is not None:
            if not VALID_ID.match(wanted):
                raise NotebookError(
                    "INVALID_OP", f"'{wanted}' is not a valid cell id (1–64 of a-z A-Z 0-9 - _)"
                )
            if wanted in taken:
                raise NotebookError("CELL_EXISTS", f"a cell with id '{wanted}' is already in {self.name}")
            return wanted
        cell_id = new_cell_id()
        while cell_id in taken:
            cell_id = new_cell_id()
        return cell_id

    def done(self, cell_id: str, index: int) -> OpResult:
        self.changed.add(cell_id)
        self.modified = True
        return OpResult(ok=True, id=cell_id, index=index)

    def run(self, op: Op) -> OpResult:
        if isinstance(op, GetCells):
            return OpResult(ok=True, cells=tuple(Cell.from_json(c) for c in self.cells))
        if isinstance(op, Insert):
            index = 0 if op.after_id is None else self.locate(op.after_id) + 1
            cell_id = self.new_id(op.id)
            self.cells.insert(index, new_cell_json(op.cell_type, op.source, cell_id=cell_id))
            return self.done(cell_id, index)
        if isinstance(op, Replace):
            index = self.locate(op.id)
            self.check_expected(index, op.expect)
            if joined(self.cells[index].get("source", "")) == op.source:
                return OpResult(ok=True, id=op.id, index=index)
            self.cells[index] = {**self.cells[index], "source": op.source}  # a new dict: see `apply_ops`
            return self.done(op.id, index)
        if isinstance(op, SetType):
            return self.set_type(op)
        if isinstance(op, Delete):
            index = self.locate(op.id)
            self.check_expected(index, op.expect)
            removed = self.cells.pop(index)
            self.changed.discard(op.id)
            self.modified = True
            snapshot = copy.deepcopy(removed)
            snapshot["source"] = joined(snapshot.get("source", ""))
            return OpResult(ok=True, id=op.id, index=index, cell=snapshot)
        if isinstance(op, Restore):
            return self.restore(op)
        if isinstance(op, Move):
            return self.move(op)
        if isinstance(op, ClearOutputs):
            return self.clear_outputs(op)
        return self.set_outputs(op)

    def set_type(self, op: SetType) -> OpResult:
        index = self.locate(op.id)
        self.check_expected(index, op.expect)
        old = self.cells[index]
        if old.get("cell_type") == op.cell_type:
            return OpResult(ok=True, id=op.id, index=index)
        replacement = new_cell_json(op.cell_type, joined(old.get("source", "")), cell_id=op.id)
        replacement["metadata"] = old.get("metadata", {})
        if op.cell_type != "code" and "attachments" in old:
            replacement["attachments"] = old["attachments"]
        self.cells[index] = replacement
        return self.done(op.id, index)

    def restore(self, op: Restore) -> OpResult:
        cell_id = op.cell.get("id")
        if not isinstance(cell_id, str) or not cell_id:
            raise NotebookError("INVALID_OP", "the cell to restore has no 'id'")
        if any(c.get("id") == cell_id for c in self.cells):
            raise NotebookError(
                "CELL_EXISTS", f"a cell with id '{cell_id}' is already in {self.name}; nothing to restore"
            )
        index = min(max(op.index, 0), len(self.cells))
        self.cells.insert(index, copy.deepcopy(dict(op.cell)))
        return self.done(cell_id, index)

    def code_cell(self, cell_id: str) -> tuple[int, CellJson]:
        index = self.locate(cell_id)
        cell = self.cells[index]
        if cell.get("cell_type") != "code":
            raise NotebookError(
                "INVALID_OP",
                f"cell '{cell_id}' is a {cell.get('cell_type')} cell; only code cells have outputs",
            )
        return index, cell

    def move(self, op: Move) -> OpResult:
        if op.after_id == op.id:
            raise NotebookError(
                "INVALID_OP", f"cell '{op.id}' cannot go after itself; name another cell or null"
            )
        index = self.locate(op.id)
        self.check_expected(index, op.expect)
        insert_at = 0 if op.after_id is None else self.locate(op.after_id) + 1
        if insert_at in (index, index + 1):
            return OpResult(ok=True, id=op.id, index=index)  # already there
        cell = self.cells.pop(index)
        to = insert_at if insert_at < index else insert_at - 1
        self.cells.insert(to, cell)
        return self.done(op.id, to)

    def clear_outputs(self, op: ClearOutputs) -> OpResult:
        index, cell = self.code_cell(op.id)
        self.check_expected(index, op.expect)
        before = copy.deepcopy(cell)
        before["source"] = joined(before.get("source", ""))
        if cell.get("outputs") or cell.get("execution_count") is not None:
            # A new dict, never the parsed one changed in place (the file backend's parse is shared).
            self.cells[index] = {**cell, "outputs": [], "execution_count": None}
            self.changed.add(op.id)
            self.modified = True
        return OpResult(ok=True, id=op.id, index=index, cell=before)

    def set_outputs(self, op: SetOutputs) -> OpResult:
        index, cell = self.code_cell(op.id)
        self.check_expected(index, op.expect)
        outputs = [copy.deepcopy(dict(out)) for out in op.outputs]
        self.cells[index] = {**cell, "outputs": outputs, "execution_count": op.execution_count}
        return self.done(op.id, index)


def apply_ops(cells: list[CellJson], ops: Sequence[Op], *, name: str) -> Applied:
    """Apply `ops` to the list `cells` in place; `name` is how messages call the notebook (`analysis.ipynb`).

    A changed cell is a new dict in the list: the cell dicts themselves are never changed, so the file backend
    can hand over a copy of its parsed list and keep the parse (and each untouched cell's bytes) as they were."""
    applier = _Applier(cells, name)
    results: list[OpResult] = []
    for op in ops:
        try:
            results.append(applier.run(op))
        except NotebookError as exc:
            results.append(OpResult.failed(exc.wire, exc.message, current=exc.current))
    return Applied(results=results, changed=frozenset(applier.changed), modified=applier.modified)
