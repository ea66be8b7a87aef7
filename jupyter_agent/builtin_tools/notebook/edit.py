"""NotebookEdit: replace, insert, delete or move one cell by id, or clear its outputs — never over what the user
changed since the read.

Two guards: the read ledger (the model must have read the cell, and it must be unchanged since), and the
backend's `expect` check, atomic in the page or the file, which catches a keystroke that lands while the
approval is pending. Each change is journaled with what undoing it takes (wire-format ops, see
`undo/cells.py`).
"""

from __future__ import annotations

from typing import Any

from ...base.result import ToolResult
from ...notebook.base import Notebook
from ...notebook.cells import Cell
from ...notebook.ops import (
    ClearOutputs,
    Delete,
    Move,
    Op,
    OpResult,
    Replace,
    SetOutputs,
    SetType,
    raise_for,
)
from ...tools.context import ToolContext
from ...tools.core import WRITES, Preview
from ..files.edit import snippet
from .common import (
    NotebookPathTool,
    cell_named,
    journal_cell_change,
    ledger_key,
    shown,
    stale_while_waiting,
)
from .edit_args import EditMode, NotebookEditInput
from .edit_plan import CellEdit, plan_edit
from .hygiene import outputs_of
from .proposal import propose

DESCRIPTION = """\
Change one cell of a Jupyter notebook, addressed by its id (from NotebookRead), never by its position.
- edit_mode "replace" (default) changes the cell named by cell_id. Either new_source replaces its whole \
source, or old_string and new_string change only that text in it, as Edit does for files: old_string must \
match the cell exactly and be unique in it, unless replace_all is true. cell_type, if given, also changes \
its type; clear_outputs true also clears its outputs and execution count (omit new_source to only clear them).
- edit_mode "insert": a new cell with new_source and cell_type (required) goes right after the cell \
after_cell_id names ("" for the top); without after_cell_id it goes right below the running %%agent cell \
of this kernel's notebook (at the top of another notebook). The result gives the new cell's id.
- edit_mode "delete": removes the cell named by cell_id.
- edit_mode "move": the cell named by cell_id goes right after after_cell_id ("" for the top; \
after_cell_id is required); it keeps its id, source and outputs.
- A parameter that does not apply to the edit_mode is refused (INVALID_ARGS), not ignored.
- Without notebook_path it edits this kernel's notebook; when that is open in JupyterLab the change \
shows there at once and the user can undo it (the file on disk changes when the user saves). Where the notebook is held \
by a frontend that cannot be changed from here (VS Code, a page without the extension, a headless run), the \
change is shown to the user as a proposal to apply instead, and the result says so.
- Read a cell with NotebookRead before replacing, deleting or clearing it: a cell never read is refused \
(NOT_READ), and a cell the user changed since your read is refused (STALE_READ): read it again and redo \
the change.
- Editing a cell does not run it; use RunCell for that."""

__all__ = ["CellEdit", "EditMode", "NotebookEdit", "NotebookEditInput", "apply_edit", "plan_edit"]


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
    data: dict[str, Any] = {"notebook": str(book.path), "live": book.live, "edit_mode": edit.mode}
    if edit.mode == "insert":
        assert edit.new_type is not None
        after_id = edit.after.id if edit.after is not None else None
        done = await book.insert(after_id, edit.new_type, edit.new_source)
        new_id = done.id or ""
        inverse = [Delete(id=new_id, expect=edit.new_source)]
        journal_cell_change(ctx, book, "insert", new_id, inverse, edit.new_source, tool, index=done.index)
        ctx.reads.record(ledger_key(book, new_id), edit.new_source)
        where = f"after cell '{after_id}'" if after_id else "at the top"
        position = (done.index or 0) + 1
        content = f"Inserted {edit.new_type} cell '{new_id}' {where} in {name} (position {position})."
        summary = f"Inserted {edit.new_type} {cell_named(done.index, new_id, edit.new_source)} into {name}"
        return ToolResult.ok(content, summary=summary, diff=edit.diff.text, data={**data, "cell_id": new_id})
    cell = edit.cell
    assert cell is not None
    results = await book.apply(edit.ops)
    first = _checked(results[0], cell.id, book)
    if edit.mode == "delete":
        removed = first
        restore = {"op": "restore", "index": removed.index or 0, "cell": dict(removed.cell or cell.to_json())}
        journal_cell_change(ctx, book, "delete", cell.id, [restore], None, tool, index=removed.index)
        ctx.reads.forget(ledger_key(book, cell.id))
        lines = len(cell.source.splitlines())
        content = f"Deleted {cell.cell_type} cell '{cell.id}' ({lines} line{'s' if lines != 1 else ''}) from {name}."
        return ToolResult.ok(
            content,
            summary=f"Deleted {cell_named(edit.position, cell.id, cell.source)} of {name}",
            diff=edit.diff.text,
            data={**data, "cell_id": cell.id},
        )
    if edit.mode == "move":
        back = Move(id=cell.id, after_id=edit.was_after, expect=cell.source)
        journal_cell_change(ctx, book, "move", cell.id, [back], cell.source, tool, index=first.index)
        where = f"right after cell '{edit.after.id}'" if edit.after is not None else "to the top"
        content = (
            f"Moved {cell.cell_type} cell '{cell.id}' {where} in {name} (now position {(first.index or 0) + 1}); "
            f"its id, source and outputs are unchanged."
        )
        return ToolResult.ok(
            content,
            summary=f"Moved {cell_named(edit.position, cell.id, cell.source)} of {name}",
            diff=edit.diff.text,
            data={**data, "cell_id": cell.id},
        )
    return _replaced(edit, cell, list(zip(edit.ops, results, strict=True)), ctx, tool, data)


def _replaced(
    edit: CellEdit,
    cell: Cell,
    results: list[tuple[Op, OpResult]],
    ctx: ToolContext,
    tool: str,
    data: dict[str, Any],
) -> ToolResult:
    """A replace (source, type, outputs, in that order) as one journaled change whose undo reverses each part."""
    book, name = edit.book, shown(ctx, edit.book)
    by_kind = {type(op): result for op, result in results}
    undo: list[Op | dict[str, Any]] = []
    extra = ""
    if SetType in by_kind:
        typed = by_kind[SetType]
        if typed.ok:
            undo.append(SetType(id=cell.id, cell_type=cell.cell_type, expect=edit.new_source))
            extra += f" It is now a {edit.new_type} cell."
        else:
            extra += f" Its type was not changed: {typed.message}."
    cleared = False
    if ClearOutputs in by_kind:
        clear = by_kind[ClearOutputs]
        if clear.ok:
            outputs, count = outputs_of(clear.cell, cell)
            undo.append(
                SetOutputs(id=cell.id, outputs=tuple(outputs), execution_count=count, expect=edit.new_source)
            )
            cleared = True
        else:
            extra += f" Its outputs were not cleared: {clear.message}."
    if Replace in by_kind:
        undo.append(Replace(id=cell.id, source=cell.source, expect=edit.new_source))
    source_changed = Replace in by_kind or SetType in by_kind
    index = next((result.index for _, result in results if result.ok), None)
    journal_cell_change(
        ctx,
        book,
        "replace" if source_changed else "clear_outputs",
        cell.id,
        undo,
        edit.new_source,
        tool,
        index=index,
    )
    ctx.reads.record(ledger_key(book, cell.id), edit.new_source)
    if not source_changed:
        count = len(cell.outputs)
        content = (
            f"Cleared the outputs of cell '{cell.id}' in {name} ({count} output{'s' if count != 1 else ''} and "
            f"the execution count); its source is unchanged."
        )
        summary = f"Cleared the outputs of {cell_named(index, cell.id, cell.source)} of {name}"
    else:
        counts = edit.diff.counts
        if cleared:
            extra += " Its outputs and execution count were cleared."
        content = f"Edited cell '{cell.id}' in {name} ({counts}).{extra}{_changed_lines(edit)}"
        summary = f"Edited {cell_named(index, cell.id, edit.new_source)} of {name} ({counts})"
    return ToolResult.ok(content, summary=summary, diff=edit.diff.text, data={**data, "cell_id": cell.id})


def _changed_lines(edit: CellEdit) -> str:
    """After an in-cell replace, the lines it changed, numbered like Edit's result (or where they were)."""
    replaced = edit.replaced
    if replaced is None:
        return ""
    lines = replaced.lines
    count = len(lines)
    if count > 1:
        listed = ", ".join(str(n) for n in lines[:20]) + (", …" if count > 20 else "")
        return f" Replaced {count} occurrences (they were at lines {listed})."
    return " The changed lines now read:\n" + snippet(edit.new_source, lines[0], edit.new_string)


class NotebookEdit(NotebookPathTool[NotebookEditInput]):
    name = "NotebookEdit"
    description = DESCRIPTION
    kind = "edit"
    annotations = WRITES
    Input = NotebookEditInput
    streamed_field = "new_source"

    def title(self, params: NotebookEditInput, ctx: ToolContext) -> str:
        subject = self.rule_subject(params, ctx) or "notebook"
        if params.edit_mode == "insert":
            return f"NotebookEdit {subject} insert {params.cell_type or ''}".rstrip()
        if params.clear_outputs and params.new_source is None:
            return f"NotebookEdit {subject} clear outputs {params.cell_id or ''}".rstrip()
        return f"NotebookEdit {subject} {params.edit_mode} {params.cell_id or ''}".rstrip()

    async def preview(self, params: NotebookEditInput, ctx: ToolContext) -> Preview:
        edit = await plan_edit(params, ctx)
        cell = edit.cell
        return Preview(
            kind="diff",
            text=edit.diff.text or "(no changes)\n",
            language="diff",
            cells=edit.at_cells(),
            subject=""
            if cell is None
            else f"{cell_named(edit.position, cell.id, cell.source)} of {shown(ctx, edit.book)}",
        )

    async def run(self, params: NotebookEditInput, ctx: ToolContext) -> ToolResult:
        return await apply_edit(await plan_edit(params, ctx), ctx, tool=self.name)
