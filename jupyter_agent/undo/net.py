"""A run's net change per cell and per file, and undoing one of them (`%agent review`, the run's footer).

`RunJournal.changes` lists every write in order; a run may insert a cell and then replace it twice, or write
one file three times. Review acts on the net effect: the state before the run's first change to a cell or
file, and after its last. An insert later deleted by the same run nets to nothing. Undoing one net change is
guarded exactly as `%agent undo` guards each step: a cell is put back only if its source is still what the
run left (else it is kept, with the reason), a file only if its bytes are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

from ..base.journal import CellChange, CellOp, FileChange, ReviewState, RunJournal, UndoStep
from ..base.journal_store import UndoRecordLost
from ..base.sandbox import Sandbox
from ..tools.context import ToolContext
from .cells import undo_cell_change
from .files import undo_file_change
from .variables import NetVariableChange, net_variable_changes, undo_step, undo_variable

NetKind = Literal["added", "changed", "deleted"]
_OP_OF: dict[NetKind, CellOp] = {"added": "insert", "changed": "replace", "deleted": "delete"}


@dataclass(frozen=True, kw_only=True)
class NetCellChange:
    """One cell a run touched: its source before the run's first change and after its last."""

    notebook: str
    cell_id: str
    kind: NetKind
    #: None: the run inserted the cell.
    before_source: str | None
    #: None: the run deleted the cell.
    after_source: str | None
    cell_type: str
    #: Where the deleted cell stood (for a restore); None for the others.
    index_before: int | None
    #: The wire ops that put the cell back as it was before the run, each guarded by `after_source`.
    undo_ops: tuple[Mapping[str, Any], ...]
    live: bool
    review: ReviewState
    #: The position of the run's last change to it: undo all goes newest first.
    last: int
    #: Where the cell stood after the run's last change to it that knew (0-based; None: not known).
    index: int | None = None

    @property
    def key(self) -> str:
        return f"{self.notebook}#{self.cell_id}"

    def label(self, _sandbox: Sandbox | None = None) -> str:
        return f"cell {self.cell_id}"


@dataclass(frozen=True, kw_only=True)
class NetFileChange:
    """One file a run wrote: its bytes before the first write (None: created) and after the last."""

    path: Path
    kind: NetKind
    before: bytes | None
    after: bytes
    tool: str
    review: ReviewState
    last: int

    @property
    def key(self) -> str:
        return str(self.path)

    def label(self, sandbox: Sandbox | None = None) -> str:
        return sandbox.display_path(self.path) if sandbox is not None else str(self.path)


NetChange = NetCellChange | NetFileChange | NetVariableChange


def net_changes(journal: RunJournal) -> list[NetChange]:
    """The run's net changes, in the order it first touched each cell or file (nothing that netted out)."""
    cells: dict[tuple[str, str], list[tuple[int, CellChange]]] = {}
    files: dict[Path, list[tuple[int, FileChange]]] = {}
    order: list[tuple[str, str] | Path] = []
    for position, change in enumerate(journal.changes):
        if isinstance(change, FileChange):
            if change.path not in files:
                order.append(change.path)
            files.setdefault(change.path, []).append((position, change))
        else:
            key = (change.notebook, change.cell_id)
            if key not in cells:
                order.append(key)
            cells.setdefault(key, []).append((position, change))
    found: list[NetChange] = []
    for key in order:
        if isinstance(key, Path):
            net: NetChange | None = _net_file(files[key], journal)
        else:
            net = _net_cell(cells[key], journal)
        if net is not None:
            found.append(net)
    return [*found, *net_variable_changes(journal)]  # the kernel's variables, after the cells and files


def review_state(journal: RunJournal, key: str) -> ReviewState:
    """Pending unless reviewed; a run undone as a whole (`%agent undo`) counts as undone."""
    return journal.review.get(key) or ("undone" if journal.undone else "pending")


def _net_file(writes: Sequence[tuple[int, FileChange]], journal: RunJournal) -> NetFileChange | None:
    """None also when its undo records cannot be read back (lost or changed on disk): nothing to show a diff
    of; `%agent undo` names the file and why."""
    first, (last_at, last) = writes[0][1], writes[-1]
    try:
        before, after = first.before, last.after
    except UndoRecordLost:
        return None
    if before == after:
        return None  # written and put back by the same run
    return NetFileChange(
        path=last.path,
        kind="added" if before is None else "changed",
        before=before,
        after=after,
        tool=last.tool,
        review=review_state(journal, str(last.path)),
        last=last_at,
    )


def _net_cell(steps: Sequence[tuple[int, CellChange]], journal: RunJournal) -> NetCellChange | None:
    first, (last_at, last) = steps[0][1], steps[-1]
    if first.op == "insert" and last.op == "delete":
        return None  # inserted and deleted by the same run
    if all(step.op == "run" for _, step in steps):
        return None  # only ran: no change of the cell to review (`%agent undo` still puts its outputs back)
    ops = [op for _, step in steps for op in _ops(step)]
    restore = next((op for op in _ops(last) if op.get("op") == "restore"), None)
    earliest_source = next((str(op["source"]) for op in _ops(first) if op.get("op") == "replace"), None)
    if earliest_source is None and first.op in ("move", "clear_outputs", "run"):
        earliest_source = first.after_source  # it changed no text: the source before it is the one it left
    earliest_type = next((str(op["cell_type"]) for op in ops if op.get("op") == "set_type"), None)
    kind: NetKind
    undo: list[Mapping[str, Any]]
    if first.op == "insert":
        kind, before, cell_type = "added", None, _current_type(steps)
        undo = [{"op": "delete", "id": last.cell_id, "expect": last.after_source}]
    elif restore is not None:  # the run's last change deleted it: put back the cell as it was before the run
        kind = "deleted"
        cell = dict(cast(Mapping[str, Any], restore["cell"]))
        if earliest_source is not None:
            cell["source"] = earliest_source
        if earliest_type is not None:
            cell["cell_type"] = earliest_type
        if (outputs := _first_of(steps, "set_outputs")) is not None:  # as they were before the run ran it
            cell["outputs"], cell["execution_count"] = list(outputs["outputs"]), outputs["execution_count"]
        before, cell_type = _source(cell.get("source")), str(cell.get("cell_type", "code"))
        undo = [{"op": "restore", "index": restore["index"], "cell": cell}]
    else:
        kind, before = "changed", earliest_source or ""
        cell_type = earliest_type or _current_type(steps)
        undo = []
        # Each guarded by the source the run left, so a cell the user changed since is kept whole.
        back = _first_of(steps, "move")
        if back is not None:  # back after the neighbour it had before the run's first move
            undo.append({**back, "expect": last.after_source})
        if earliest_type is not None:
            undo.append(
                {
                    "op": "set_type",
                    "id": last.cell_id,
                    "cell_type": earliest_type,
                    "expect": last.after_source,
                }
            )
        outputs = _first_of(steps, "set_outputs")
        if outputs is not None:  # the outputs the run's first clear took away (after any type change back)
            undo.append({**outputs, "expect": last.after_source})
        undo.append({"op": "replace", "id": last.cell_id, "source": before, "expect": last.after_source})
    live = bool(last.inverse.get("live"))
    return NetCellChange(
        notebook=last.notebook,
        cell_id=last.cell_id,
        kind=kind,
        before_source=before,
        after_source=last.after_source,
        cell_type=cell_type,
        index_before=cast(int, restore["index"]) if restore is not None else None,
        undo_ops=tuple(undo),
        live=live,
        review=review_state(journal, f"{last.notebook}#{last.cell_id}"),
        last=last_at,
        index=next((step.index for _, step in reversed(steps) if step.index is not None), None),
    )


def _first_of(steps: Sequence[tuple[int, CellChange]], name: str) -> Mapping[str, Any] | None:
    """The earliest step's undo op of that kind: it leads back to the state before the run."""
    return next((op for _, step in steps for op in _ops(step) if op.get("op") == name), None)


def _ops(change: CellChange) -> list[Mapping[str, Any]]:
    raw = change.inverse.get("ops", [])
    return [cast(Mapping[str, Any], op) for op in cast(list[Any], raw) if isinstance(op, Mapping)]


def _source(value: object) -> str:
    if isinstance(value, list):
        return "".join(str(part) for part in cast(list[Any], value))
    return str(value or "")


def _current_type(steps: Sequence[tuple[int, CellChange]]) -> str:
    """The type before the run's first type change (the journal keeps none for an insert: code then)."""
    for _, step in steps:
        for op in _ops(step):
            if op.get("op") == "set_type":
                return str(op["cell_type"])
    return "code"


async def undo_net_change(change: NetChange, journal: RunJournal, ctx: ToolContext) -> UndoStep:
    """Put one net change back, guarded like `%agent undo`; on success its review is `undone`."""
    if isinstance(change, NetVariableChange):
        if ctx.namespace is None:
            return UndoStep.kept(f"variable {change.name}", "this session has no kernel namespace")
        step = undo_step(undo_variable(change, ctx.namespace, ctx.services.kernel_undo))
    elif isinstance(change, NetFileChange):
        step = await undo_file_change(
            FileChange(path=change.path, before=change.before, after=change.after, tool=change.tool),
            ctx.sandbox,
        )
        ctx.reads.forget(str(change.path))
    else:
        step = await undo_cell_change(
            CellChange(
                notebook=change.notebook,
                op=_OP_OF[change.kind],
                cell_id=change.cell_id,
                inverse={"ops": [dict(op) for op in change.undo_ops], "live": change.live},
                after_source=change.after_source,
                tool="review",
            ),
            ctx,
        )
    if step.done:
        journal.review[change.key] = "undone"
    return step
