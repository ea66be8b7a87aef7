"""Cell operations and their results: Python values, and the JSON of the wire protocol (docs/notebook-protocol.md).

Both backends take the same operations and answer with the same results, so the tools never know which
one they talk to. An operation addresses cells by id, never by index: indexes shift while the user works.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

from ..base.errors import ToolError
from ..base.result import ErrorCode
from .cells import CELL_TYPES, Cell, CellType

#: The error identifiers of the wire protocol (the labextension's `ErrorCode`).
WireError = Literal[
    "STALE_READ", "CELL_NOT_FOUND", "INVALID_OP", "CELL_BUSY", "CELL_EXISTS", "EXECUTION_ERROR"
]

#: How a wire error becomes a tool error code (the model's fix is in the message).
_TOOL_CODES: dict[str, ErrorCode] = {
    "STALE_READ": "STALE_READ",
    "CELL_NOT_FOUND": "CELL_NOT_FOUND",
    "INVALID_OP": "INVALID_ARGS",
    "CELL_BUSY": "NOT_AVAILABLE",
    "CELL_EXISTS": "EXECUTION_ERROR",
    "EXECUTION_ERROR": "EXECUTION_ERROR",
}


@dataclass(frozen=True, kw_only=True)
class GetCells:
    op: Literal["get_cells"] = "get_cells"


@dataclass(frozen=True, kw_only=True)
class Insert:
    """A new cell after `after_id` (None: at the top); the result names its id."""

    after_id: str | None
    cell_type: CellType
    source: str
    #: The new cell's id, so later ops of the same batch can address it (None: the backend picks one).
    id: str | None = None
    op: Literal["insert"] = "insert"


@dataclass(frozen=True, kw_only=True)
class Replace:
    """New source for a cell; refused as `STALE_READ` unless its source is still `expect` (None: no check)."""

    id: str
    source: str
    expect: str | None
    op: Literal["replace"] = "replace"


@dataclass(frozen=True, kw_only=True)
class SetType:
    id: str
    cell_type: CellType
    expect: str | None
    op: Literal["set_type"] = "set_type"


@dataclass(frozen=True, kw_only=True)
class Delete:
    """Removes a cell; the result carries its JSON and index, which `Restore` takes to undo it."""

    id: str
    expect: str | None
    op: Literal["delete"] = "delete"


@dataclass(frozen=True, kw_only=True)
class Restore:
    """Puts a deleted cell back (same id) at `index`, or at the end when the notebook has shrunk."""

    index: int
    cell: Mapping[str, Any]
    op: Literal["restore"] = "restore"


@dataclass(frozen=True, kw_only=True)
class SetOutputs:
    id: str
    outputs: tuple[Mapping[str, Any], ...]
    execution_count: int | None
    #: The source the outputs belong to (the undo of a clear); None: no check.
    expect: str | None = None
    op: Literal["set_outputs"] = "set_outputs"


@dataclass(frozen=True, kw_only=True)
class Move:
    """The same cell (id, source, outputs, metadata) right after `after_id` (None: at the top)."""

    id: str
    after_id: str | None
    expect: str | None = None
    op: Literal["move"] = "move"


@dataclass(frozen=True, kw_only=True)
class ClearOutputs:
    """Clears a code cell's outputs and execution count; the result's `cell` is the cell as it was."""

    id: str
    expect: str | None = None
    op: Literal["clear_outputs"] = "clear_outputs"


Op = GetCells | Insert | Replace | SetType | Delete | Restore | SetOutputs | Move | ClearOutputs


def op_to_wire(op: Op) -> dict[str, Any]:
    """The op as the JSON object the labextension parses."""
    if isinstance(op, GetCells):
        return {"op": op.op}
    if isinstance(op, Insert):
        data = {"op": op.op, "after_id": op.after_id, "cell_type": op.cell_type, "source": op.source}
        return data if op.id is None else {**data, "id": op.id}
    if isinstance(op, Replace):
        return {"op": op.op, "id": op.id, "source": op.source, "expect": op.expect}
    if isinstance(op, SetType):
        return {"op": op.op, "id": op.id, "cell_type": op.cell_type, "expect": op.expect}
    if isinstance(op, Delete):
        return {"op": op.op, "id": op.id, "expect": op.expect}
    if isinstance(op, Restore):
        return {"op": op.op, "index": op.index, "cell": dict(op.cell)}
    if isinstance(op, Move):
        return {"op": op.op, "id": op.id, "after_id": op.after_id, "expect": op.expect}
    if isinstance(op, ClearOutputs):
        return {"op": op.op, "id": op.id, "expect": op.expect}
    data = {
        "op": op.op,
        "id": op.id,
        "outputs": [dict(out) for out in op.outputs],
        "execution_count": op.execution_count,
    }
    return data if op.expect is None else {**data, "expect": op.expect}


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise ValueError(f"'{key}' must be a string")
    return value


def _optional_text(data: Mapping[str, Any], key: str) -> str | None:
    return None if data.get(key) is None else _text(data, key)


def _position(data: Mapping[str, Any], key: str) -> str | None:
    """`after_id` must be spelled out: a forgotten one silently meaning "at the top" would misplace a cell."""
    if key not in data:
        raise ValueError(f"'{key}' must be a cell id or null (null: at the top), got nothing")
    return _optional_text(data, key)


def _cell_type(data: Mapping[str, Any]) -> CellType:
    value = data.get("cell_type")
    if value not in CELL_TYPES:
        raise ValueError(f"'cell_type' must be one of {', '.join(CELL_TYPES)}")
    return value


def op_from_wire(data: Mapping[str, Any]) -> Op:
    """Parse one op of a request (what a frontend does); `ValueError` names what is wrong."""
    name = data.get("op")
    if name == "get_cells":
        return GetCells()
    if name == "insert":
        return Insert(
            after_id=_position(data, "after_id"),
            cell_type=_cell_type(data),
            source=_text(data, "source"),
            id=_optional_text(data, "id"),
        )
    if name == "replace":
        return Replace(
            id=_text(data, "id"), source=_text(data, "source"), expect=_optional_text(data, "expect")
        )
    if name == "set_type":
        return SetType(
            id=_text(data, "id"), cell_type=_cell_type(data), expect=_optional_text(data, "expect")
        )
    if name == "delete":
        return Delete(id=_text(data, "id"), expect=_optional_text(data, "expect"))
    if name == "restore":
        index, cell = data.get("index"), data.get("cell")
        if not isinstance(index, int) or not isinstance(cell, dict):
            raise ValueError("'restore' needs an integer 'index' and a 'cell' object")
        return Restore(index=index, cell=cast(dict[str, Any], cell))
    if name == "set_outputs":
        outputs, count = data.get("outputs"), data.get("execution_count")
        if not isinstance(outputs, list) or not (count is None or isinstance(count, int)):
            raise ValueError("'set_outputs' needs an 'outputs' list and an integer or null 'execution_count'")
        return SetOutputs(
            id=_text(data, "id"),
            outputs=tuple(cast(list[Any], outputs)),
            execution_count=count,
            expect=_optional_text(data, "expect"),
        )
    if name == "move":
        return Move(
            id=_text(data, "id"), after_id=_position(data, "after_id"), expect=_optional_text(data, "expect")
        )
    if name == "clear_outputs":
        return ClearOutputs(id=_text(data, "id"), expect=_optional_text(data, "expect"))
    raise ValueError(f"unknown op {name!r}")


@dataclass(frozen=True, kw_only=True)
class OpResult:
    """One op's outcome. `ok` results name the cell and its index; `get_cells` fills `cells`."""

    ok: bool
    id: str | None = None
    index: int | None = None
    #: delete: the removed cell's JSON, for `Restore`; clear_outputs: the cell as it was, for `SetOutputs`.
    cell: Mapping[str, Any] | None = None
    cells: tuple[Cell, ...] = ()
    #: get_cells of a live notebook: whether it has unsaved changes.
    dirty: bool = False
    error: WireError | None = None
    message: str = ""
    #: STALE_READ: the cell's source now.
    current: str | None = None

    @classmethod
    def failed(cls, error: WireError, message: str, *, current: str | None = None) -> OpResult:
        return cls(ok=False, error=error, message=message, current=current)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> OpResult:
        if data.get("ok") is not True:
            code = data.get("error")
            error = cast(WireError, code if code in _TOOL_CODES else "EXECUTION_ERROR")
            current = data.get("current")
            return cls.failed(
                error, str(data.get("message", "")), current=current if isinstance(current, str) else None
            )
        cells_json = cast(list[Mapping[str, Any]], data.get("cells") or [])
        index = data.get("index")
        cell = data.get("cell")
        return cls(
            ok=True,
            id=str(data["id"]) if data.get("id") is not None else None,
            index=index if isinstance(index, int) else None,
            cell=cast(Mapping[str, Any], cell) if isinstance(cell, dict) else None,
            cells=tuple(Cell.from_json(c) for c in cells_json),
            dirty=bool(data.get("dirty", False)),
        )

    def to_wire(self, *, path: str = "") -> dict[str, Any]:
        """What a frontend sends back for this result (used by the Python stand-ins of the extension)."""
        if not self.ok:
            data: dict[str, Any] = {"ok": False, "error": self.error, "message": self.message}
            if self.current is not None:
                data["current"] = self.current
            return data
        if self.id is None:  # get_cells
            return {"ok": True, "cells": [c.to_json() for c in self.cells], "path": path, "dirty": self.dirty}
        data = {"ok": True, "id": self.id, "index": self.index}
        if self.cell is not None:
            data["cell"] = dict(self.cell)
        return data


class NotebookError(ToolError):
    """A failed op as a tool error: the wire code is kept for callers that branch on it (undo)."""

    def __init__(self, wire: WireError, message: str, *, current: str | None = None) -> None:
        super().__init__(_TOOL_CODES[wire], message)
        self.wire: WireError = wire
        self.current = current


def raise_for(result: OpResult) -> OpResult:
    """The result when it succeeded, else its `NotebookError`."""
    if not result.ok:
        raise NotebookError(result.error or "EXECUTION_ERROR", result.message, current=result.current)
    return result
