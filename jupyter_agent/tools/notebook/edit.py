"""NotebookEdit: replace, insert or delete one cell by id — never over what the user changed since the read.

Two guards: the read ledger (the model must have read the cell, and it must be unchanged since), and the
backend's `expect` check, atomic in the page or the file, which catches a keystroke that lands while the
approval is pending. Each change is journaled with what undoing it takes (wire-format ops, see
`undo/cells.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ...base.errors import ToolError
from ...base.journal import CellChange
from ...base.result import ToolResult
from ...notebook.base import Notebook
from ...notebook.cells import Cell, CellType
from ...notebook.ops import Delete, Op, OpResult, Replace, SetType, op_to_wire, raise_for
from ...notebook.provider import WriteAccess
from ..context import ToolContext
from ..core import WRITES, Preview, ToolInput
from ..files.diff import Diff, unified_diff
from .common import (
    LIVE_NOTE,
    NotebookPathTool,
    find,
    ledger_key,
    open_for_write,
    require_fresh,
    shown,
    stale_while_waiting,
)
from .proposal import Proposal, propose

DESCRIPTION = """\
Change one cell of a Jupyter notebook, addressed by its id (from NotebookRead).
- edit_mode "replace" (default): new_source replaces the cell's source; cell_type, if given, also \
changes its type.
- edit_mode "insert": a new cell with new_source goes after cell_id; without cell_id it goes right below \
the running %%agent cell of this kernel's notebook (at the top of another notebook); cell_type is required. The result gives the new cell's id.
- edit_mode "delete": removes the cell (new_source is ignored; pass "").
- Without notebook_path it edits this kernel's notebook; when that is open in JupyterLab the change \
shows there at once and the user can undo it (the file is saved by the user). Where the notebook is held \
by a frontend that cannot be changed from here (VS Code, a page without the extension, a headless run), the \
change is shown to the user as a proposal to apply instead, and the result says so.
- Read a cell with NotebookRead before replacing or deleting it; a cell the user changed since is \
refused (STALE_READ): read it again and redo the change.
- Editing a cell does not run it; use RunCell for that."""

EditMode = Literal["replace", "insert", "delete"]


class NotebookEditInput(ToolInput):
    notebook_path: str | None = None
    """The notebook to edit, absolute or relative to the notebook's directory. Omit it for this kernel's notebook."""
    cell_id: str | None = None
    """The cell to replace or delete; for insert, the cell to insert after (omit: below the running %%agent cell)."""
    new_source: str
    """The cell's new source (ignored for delete)."""
    cell_type: Literal["code", "markdown"] | None = None
    """The cell's type: required for insert; for replace, changes the type when it differs."""
    edit_mode: EditMode = "replace"
    """replace (default), insert, or delete."""


@dataclass(frozen=True, kw_only=True)
class CellEdit:
    """An edit checked and diffed before anything changes: the approval shows `diff`, the run applies `ops`
    (or, when `access` says so, shows it as a proposal)."""

    access: WriteAccess
    book: Notebook
    mode: EditMode
    #: The cell replaced or deleted (None for insert).
    cell: Cell | None
    #: insert: the cell to insert after (None: top).
    after: Cell | None
    new_source: str
    new_type: CellType | None
    diff: Diff

    def proposal(self) -> Proposal:
        return Proposal(
            mode=self.mode,
            notebook=self.book.name,
            cell_id=self.cell.id if self.cell is not None else None,
            after_id=self.after.id if self.after is not None else None,
            cell_type=self.new_type or (self.cell.cell_type if self.cell is not None else "code"),
            new_source=self.new_source,
            old_source=self.cell.source if self.cell is not None else "",
        )

    @property
    def ops(self) -> list[Op]:
        if self.mode == "insert":
            return []  # built in `apply`, which needs the insert's result
        assert self.cell is not None
        if self.mode == "delete":
            return [Delete(id=self.cell.id, expect=self.cell.source)]
        ops: list[Op] = [Replace(id=self.cell.id, source=self.new_source, expect=self.cell.source)]
        if self.new_type is not None and self.new_type != self.cell.cell_type:
            ops.append(SetType(id=self.cell.id, cell_type=self.new_type, expect=self.new_source))
        return ops


def _needs_cell(mode: EditMode, cell_id: str | None) -> str:
    if cell_id is None:
        raise ToolError(
            "INVALID_ARGS", f"edit_mode '{mode}' needs cell_id (the id NotebookRead shows for the cell)"
        )
    return cell_id


def _running_cell(ctx: ToolContext, notebook_path: str | None, cells: Sequence[Cell]) -> Cell | None:
    """An insert without cell_id into this kernel's notebook goes right below the running `%%agent` cell,
    where the user is looking (None, the top, when that cell is unknown or in another notebook)."""
    running = ctx.services.running_cell_id
    if notebook_path is not None or running is None:
        return None
    return next((cell for cell in cells if cell.id == running), None)


async def plan_edit(params: NotebookEditInput, ctx: ToolContext) -> CellEdit:
    access = await open_for_write(ctx, params.notebook_path)
    book = access.book
    cells = await book.cells()
    label = f"{shown(ctx, book)}#{{}}"
    if params.edit_mode == "insert":
        if params.cell_type is None:
            raise ToolError("INVALID_ARGS", "edit_mode 'insert' needs cell_type ('code' or 'markdown')")
        after = (
            find(cells, params.cell_id, book)[1]
            if params.cell_id is not None
            else _running_cell(ctx, params.notebook_path, cells)
        )
        diff = unified_diff("", params.new_source, label.format("new"))
        return CellEdit(
            access=access,
            book=book,
            mode="insert",
            cell=None,
            after=after,
            new_source=params.new_source,
            new_type=params.cell_type,
            diff=diff,
        )
    _, cell = find(cells, _needs_cell(params.edit_mode, params.cell_id), book)
    require_fresh(ctx, book, cell)
    if params.edit_mode == "delete":
        diff = unified_diff(cell.source, "", label.format(cell.id))
        return CellEdit(
            access=access,
            book=book,
            mode="delete",
            cell=cell,
            after=None,
            new_source="",
            new_type=None,
            diff=diff,
        )
    retype = params.cell_type if params.cell_type not in (None, cell.cell_type) else None
    if params.new_source == cell.source and retype is None:
        raise ToolError(
            "NO_CHANGE",
            f"new_source is the same as the current source of cell '{cell.id}'; pass the changed source",
        )
    diff = unified_diff(cell.source, params.new_source, label.format(cell.id))
    return CellEdit(
        access=access,
        book=book,
        mode="replace",
        cell=cell,
        after=None,
        new_source=params.new_source,
        new_type=retype,
        diff=diff,
    )


def _checked(result: OpResult, cell_id: str, book: Notebook) -> OpResult:
    """The result, or its error — the atomic stale check turned into the message for the model."""
    if not result.ok and result.error == "STALE_READ":
        raise stale_while_waiting(book, cell_id)
    return raise_for(result)


async def apply_edit(edit: CellEdit, ctx: ToolContext, *, tool: str) -> ToolResult:
    """Make the change, journal its inverse, update the ledger, and describe it — or, where the notebook's
    frontend holds it (`notebook.access`), show it as a proposal and say it was not applied."""
    if edit.access.decision.kind == "proposal":
        return propose(edit.proposal(), ctx, reason=edit.access.decision.reason, diff=edit.diff.text)
    book, name = edit.book, shown(ctx, edit.book)
    note = f" {LIVE_NOTE}" if book.live else ""
    data: dict[str, Any] = {"notebook": str(book.path), "live": book.live, "edit_mode": edit.mode}
    if edit.mode == "insert":
        assert edit.new_type is not None
        after_id = edit.after.id if edit.after is not None else None
        done = await book.insert(after_id, edit.new_type, edit.new_source)
        new_id = done.id or ""
        inverse = [Delete(id=new_id, expect=edit.new_source)]
        _journal(ctx, book, "insert", new_id, inverse, edit.new_source, tool)
        ctx.reads.record(ledger_key(book, new_id), edit.new_source)
        where = f"after cell '{after_id}'" if after_id else "at the top"
        position = (done.index or 0) + 1
        content = f"Inserted {edit.new_type} cell '{new_id}' {where} in {name} (position {position}).{note}"
        summary = f"Inserted {edit.new_type} cell {new_id}"
        return ToolResult.ok(content, summary=summary, diff=edit.diff.text, data={**data, "cell_id": new_id})
    cell = edit.cell
    assert cell is not None
    results = await book.apply(edit.ops)
    first = _checked(results[0], cell.id, book)
    if edit.mode == "delete":
        removed = first
        restore = {"op": "restore", "index": removed.index or 0, "cell": dict(removed.cell or cell.to_json())}
        _journal(ctx, book, "delete", cell.id, [restore], None, tool)
        ctx.reads.forget(ledger_key(book, cell.id))
        lines = len(cell.source.splitlines())
        content = f"Deleted {cell.cell_type} cell '{cell.id}' ({lines} line{'s' if lines != 1 else ''}) from {name}.{note}"
        return ToolResult.ok(
            content, summary=f"Deleted cell {cell.id}", diff=edit.diff.text, data={**data, "cell_id": cell.id}
        )
    undo: list[Op | dict[str, Any]] = []
    retyped = ""
    if edit.new_type is not None and results[1].ok:
        undo.append(SetType(id=cell.id, cell_type=cell.cell_type, expect=edit.new_source))
        retyped = f" It is now a {edit.new_type} cell."
    elif edit.new_type is not None:
        retyped = f" Its type was not changed: {results[1].message}."
    undo.append(Replace(id=cell.id, source=cell.source, expect=edit.new_source))
    _journal(ctx, book, "replace", cell.id, undo, edit.new_source, tool)
    ctx.reads.record(ledger_key(book, cell.id), edit.new_source)
    counts = edit.diff.counts
    content = f"Edited cell '{cell.id}' in {name} ({counts}).{retyped}{note}"
    return ToolResult.ok(
        content,
        summary=f"Edited cell {cell.id} ({counts})",
        diff=edit.diff.text,
        data={**data, "cell_id": cell.id},
    )


def _journal(
    ctx: ToolContext,
    book: Notebook,
    op: EditMode,
    cell_id: str,
    undo: Sequence[Op | dict[str, Any]],
    after: str | None,
    tool: str,
) -> None:
    ops = [step if isinstance(step, dict) else op_to_wire(step) for step in undo]
    ctx.journal.record(
        CellChange(
            notebook=str(book.path),
            op=op,
            cell_id=cell_id,
            inverse={"ops": ops, "live": book.live},
            after_source=after,
            tool=tool,
            call_id=ctx.tool_use_id,
        )
    )


class NotebookEdit(NotebookPathTool[NotebookEditInput]):
    name = "NotebookEdit"
    description = DESCRIPTION
    kind = "edit"
    annotations = WRITES
    Input = NotebookEditInput

    def title(self, params: NotebookEditInput, ctx: ToolContext) -> str:
        subject = self.rule_subject(params, ctx) or "notebook"
        if params.edit_mode == "insert":
            return f"NotebookEdit {subject} insert {params.cell_type or ''}".rstrip()
        return f"NotebookEdit {subject} {params.edit_mode} {params.cell_id or ''}".rstrip()

    async def preview(self, params: NotebookEditInput, ctx: ToolContext) -> Preview:
        edit = await plan_edit(params, ctx)
        return Preview(kind="diff", text=edit.diff.text or "(no changes)\n", language="diff")

    async def run(self, params: NotebookEditInput, ctx: ToolContext) -> ToolResult:
        return await apply_edit(await plan_edit(params, ctx), ctx, tool=self.name)
