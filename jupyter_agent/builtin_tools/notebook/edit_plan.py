"""NotebookEdit's plan: the input checked against the notebook and diffed before anything changes.

The approval shows the plan's diff; `edit.apply_edit` carries it out (or shows it as a proposal). Planning
reads the notebook once and refuses, with the fix, what cannot be done (a cell not read, nothing to change).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from ...base.errors import ToolError
from ...notebook.base import Notebook
from ...notebook.cells import Cell, CellType
from ...notebook.ops import ClearOutputs, Delete, Move, Op, Replace, SetType
from ...notebook.provider import WriteAccess
from ...tools.context import ToolContext
from ...tools.core import CellChangeKind, PendingCell
from ..files.diff import Diff, unified_diff
from ..files.edit import require_change
from ..files.replace import Replaced, replace
from .common import find, open_for_write, require_fresh, shown
from .edit_args import EditMode, NotebookEditInput, check_args, insert_anchor
from .hygiene import clear_diff, has_outputs, joined_diff, move_diff, moved, neighbour_before
from .proposal import Proposal


@dataclass(frozen=True, kw_only=True)
class CellEdit:
    """An edit checked and diffed before anything changes: the approval shows `diff`, the run applies `ops`
    (or, when `access` says so, shows it as a proposal)."""

    access: WriteAccess
    book: Notebook
    mode: EditMode
    #: The cell replaced, deleted or moved (None for insert).
    cell: Cell | None
    #: insert: the cell to insert after; move: the cell to put it after (None: top).
    after: Cell | None
    new_source: str
    new_type: CellType | None
    diff: Diff
    #: replace: also clear the cell's outputs and execution count.
    clear: bool = False
    #: move: the cell right above it before the move (None: it was first), where an undo puts it back.
    was_after: str | None = None
    #: replace with old_string: where the occurrences were, and the text put in (the result echoes the lines).
    replaced: Replaced | None = None
    new_string: str = ""
    #: Where `cell` is (0-based) when the edit was planned: the approval and the card name it by position.
    position: int | None = None

    def proposal(self) -> Proposal:
        return Proposal(
            mode=self.mode,
            notebook=self.book.name,
            cell_id=self.cell.id if self.cell is not None else None,
            after_id=self.after.id if self.after is not None else None,
            cell_type=self.new_type or (self.cell.cell_type if self.cell is not None else "code"),
            new_source=self.new_source,
            old_source=self.cell.source if self.cell is not None else "",
            clear_outputs=self.clear,
        )

    def at_cells(self) -> tuple[PendingCell, ...]:
        """The change as the page draws it at the cell while it waits for approval (live notebooks only)."""
        if self.access.decision.kind != "live":
            return ()
        notebook = str(self.book.path)
        after_id = self.after.id if self.after is not None else None
        cell = self.cell
        if cell is None:
            return (
                PendingCell(
                    notebook=notebook,
                    change="insert",
                    cell_id="",
                    after=self.new_source,
                    cell_type=self.new_type or "code",
                    after_id=after_id,
                ),
            )
        change: CellChangeKind = self.mode
        if self.mode == "replace" and self.new_source == cell.source and self.new_type is None:
            change = "clear_outputs"
        return (
            PendingCell(
                notebook=notebook,
                change=change,
                cell_id=cell.id,
                before=cell.source,
                after=self.new_source,
                cell_type=self.new_type or cell.cell_type,
                after_id=after_id,
                clears_outputs=self.clear,
            ),
        )

    @property
    def ops(self) -> list[Op]:
        if self.mode == "insert":
            return []  # built in `apply`, which needs the insert's result
        assert self.cell is not None
        if self.mode == "delete":
            return [Delete(id=self.cell.id, expect=self.cell.source)]
        if self.mode == "move":
            after_id = self.after.id if self.after is not None else None
            return [Move(id=self.cell.id, after_id=after_id, expect=self.cell.source)]
        ops: list[Op] = []
        if self.new_source != self.cell.source:
            ops.append(Replace(id=self.cell.id, source=self.new_source, expect=self.cell.source))
        if self.clear:  # before a type change: a markdown cell has no outputs to clear
            ops.append(ClearOutputs(id=self.cell.id, expect=self.new_source))
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
    running = ctx.run.running_cell_id
    if notebook_path is not None or running is None:
        return None
    return next((cell for cell in cells if cell.id == running), None)


async def plan_edit(params: NotebookEditInput, ctx: ToolContext) -> CellEdit:
    check_args(params)
    access = await open_for_write(ctx, params.notebook_path)
    book = access.book
    cells = await book.cells()
    label = f"{shown(ctx, book)}#{{}}"
    if params.edit_mode == "insert":
        if params.cell_type is None:
            raise ToolError("INVALID_ARGS", "edit_mode 'insert' needs cell_type ('code' or 'markdown')")
        if params.new_source is None:
            raise ToolError("INVALID_ARGS", "edit_mode 'insert' needs new_source (the new cell's source)")
        anchor = insert_anchor(params)
        after = (
            _running_cell(ctx, params.notebook_path, cells)
            if anchor is None
            else find(cells, anchor, book)[1]
            if anchor
            else None
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
    position, cell = find(cells, _needs_cell(params.edit_mode, params.cell_id), book)
    if params.edit_mode == "move":
        return dataclasses.replace(
            _plan_move(params, access, cells, cell, label.format(cell.id)), position=position
        )
    require_fresh(ctx, book, cell)
    if params.edit_mode == "delete":
        diff = unified_diff(cell.source, "", label.format(cell.id))
        return CellEdit(
            position=position,
            access=access,
            book=book,
            mode="delete",
            cell=cell,
            after=None,
            new_source="",
            new_type=None,
            diff=diff,
        )
    return dataclasses.replace(_plan_replace(params, access, cell, label.format(cell.id)), position=position)


def _plan_move(
    params: NotebookEditInput, access: WriteAccess, cells: list[Cell], cell: Cell, label: str
) -> CellEdit:
    """A move needs no read: it changes no text. Its preview is the notebook's outline before and after."""
    after_id = params.after_cell_id or None
    if after_id == cell.id:
        raise ToolError(
            "INVALID_ARGS",
            f"after_cell_id is the cell itself ('{cell.id}'); name the cell it should follow, or pass \"\" "
            "to move it to the top",
        )
    after = find(cells, after_id, access.book)[1] if after_id is not None else None
    if moved(cells, cell, after) == cells:
        where = f"right after cell '{after_id}'" if after_id else "at the top"
        raise ToolError("NO_CHANGE", f"cell '{cell.id}' is already {where}; nothing to move")
    return CellEdit(
        access=access,
        book=access.book,
        mode="move",
        cell=cell,
        after=after,
        new_source=cell.source,
        new_type=None,
        diff=move_diff(cells, cell, after, label),
        was_after=neighbour_before(cells, cell),
    )


def _in_cell(params: NotebookEditInput, cell: Cell, book: Notebook) -> Replaced | None:
    """old_string → new_string inside the cell, with Edit's matching and errors (None for a whole-cell replace)."""
    if params.old_string is None or params.new_string is None:
        return None
    require_change(params.old_string, params.new_string)
    return replace(
        cell.source,
        params.old_string,
        params.new_string,
        replace_all=params.replace_all,
        shown=f"{book.name}#{cell.id}",
        noun="cell",
        reader="NotebookRead",
    )


def _plan_replace(params: NotebookEditInput, access: WriteAccess, cell: Cell, label: str) -> CellEdit:
    replaced = _in_cell(params, cell, access.book)
    new_source = (
        replaced.text
        if replaced is not None
        else cell.source
        if params.new_source is None
        else params.new_source
    )
    if params.new_source is None and replaced is None and not params.clear_outputs:
        raise ToolError(
            "INVALID_ARGS",
            "edit_mode 'replace' needs new_source (the cell's whole new source), old_string and new_string (the "
            "part to change), or clear_outputs true to only clear its outputs",
        )
    if params.clear_outputs and params.new_source == "" and cell.source.strip():
        raise ToolError(
            "INVALID_ARGS",
            f"new_source '' with clear_outputs would also empty the source of cell '{cell.id}'; omit new_source "
            "to only clear its outputs (to empty the cell, replace it without clear_outputs)",
        )
    if params.clear_outputs and cell.cell_type != "code":
        raise ToolError(
            "INVALID_ARGS", f"cell '{cell.id}' is a {cell.cell_type} cell; only code cells have outputs"
        )
    clear = params.clear_outputs and has_outputs(cell)
    retype = params.cell_type if params.cell_type not in (None, cell.cell_type) else None
    if new_source == cell.source and retype is None and not clear:
        if params.new_source is None and replaced is None:
            raise ToolError("NO_CHANGE", f"cell '{cell.id}' has no outputs to clear; nothing to do")
        raise ToolError(
            "NO_CHANGE",
            f"new_source is the same as the current source of cell '{cell.id}'; pass the changed source",
        )
    diff = unified_diff(cell.source, new_source, label)
    if clear:
        diff = joined_diff(diff, clear_diff(cell, label))
    return CellEdit(
        access=access,
        book=access.book,
        mode="replace",
        cell=cell,
        after=None,
        new_source=new_source,
        new_type=retype,
        diff=diff,
        clear=clear,
        replaced=replaced,
        new_string=params.new_string or "",
    )
