"""What the notebook tools share: finding the notebook (sandboxed), read-ledger keys, the journal entry of a cell
change, and error texts."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...base.errors import ToolError
from ...base.journal import CellChange, CellOp
from ...masking import clip
from ...notebook.base import Notebook
from ...notebook.cells import Cell
from ...notebook.ops import Op, op_to_wire
from ...notebook.provider import NotebookProvider, WriteAccess
from ...tools.context import ToolContext
from ...tools.core import InputT, Tool


def provider_of(ctx: ToolContext) -> NotebookProvider:
    """The session's `notebooks` service (outside a kernel, a file-only provider for the env's notebook)."""
    return ctx.services.notebooks


class NotebookPathTool(Tool[InputT]):
    """A tool with an optional `notebook_path`: rules like `NotebookEdit(reports/**)` match it, and a missing
    path means this kernel's notebook."""

    rule_field = "notebook_path"
    rule_kind = "path"

    def rule_path(self, params: InputT, ctx: ToolContext) -> Path | None:
        if getattr(params, "notebook_path", None) is None:
            provider = provider_of(ctx)
            return provider.frontend.notebook or provider.default_path
        return super().rule_path(params, ctx)


def _named_notebook(ctx: ToolContext, notebook_path: str) -> Path:
    real = ctx.sandbox.confine(notebook_path)
    if real.suffix.lower() != ".ipynb":
        raise ToolError(
            "INVALID_ARGS",
            f"'{ctx.sandbox.display_path(real)}' is not a notebook (.ipynb); use Read, Edit or Write for other files",
        )
    return real


def _confine_file(ctx: ToolContext, book: Notebook) -> None:
    """A notebook read or written as a file must be inside the roots; the page of a live one is not a file."""
    if not book.live:
        ctx.sandbox.confine(str(book.path))


async def open_notebook(ctx: ToolContext, notebook_path: str | None) -> Notebook:
    """The notebook to read: the one the model named (confined to the sandbox), or this kernel's for None."""
    provider = provider_of(ctx)
    book = await provider.open(None if notebook_path is None else _named_notebook(ctx, notebook_path))
    _confine_file(ctx, book)
    return book


async def open_for_write(ctx: ToolContext, notebook_path: str | None) -> WriteAccess:
    """What may be done to that notebook (`notebook.access`: live, proposal, refuse or file) and the notebook."""
    provider = provider_of(ctx)
    access = await provider.open_for_write(
        None if notebook_path is None else _named_notebook(ctx, notebook_path)
    )
    _confine_file(ctx, access.book)
    return access


def where_read(ctx: ToolContext, book: Notebook) -> str:
    """Where the cells came from, for the model (the page, the file, a file a frontend may be ahead of)."""
    return provider_of(ctx).read_note(book)


def shown(ctx: ToolContext, book: Notebook) -> str:
    return ctx.sandbox.display_path(book.path)


def cell_named(index: int | None, cell_id: str, source: str) -> str:
    """`cell 3 ('# clean')`: a cell as a person finds it, by its position (1-based) and first line; by its id
    where the position is not known."""
    where = f"cell {index + 1}" if index is not None else f"cell {cell_id}"
    first = next((line.strip() for line in source.splitlines() if line.strip()), "")
    return f"{where} ({clip(first, 40, marker='…')!r})" if first else where


def ledger_key(book: Notebook, cell_id: str) -> str:
    """`<real path>#<cell id>`: the key Read uses for notebook cells too, so either read counts."""
    return f"{book.path}#{cell_id}"


def find(cells: list[Cell], cell_id: str, book: Notebook) -> tuple[int, Cell]:
    for index, cell in enumerate(cells):
        if cell.id == cell_id:
            return index, cell
    raise book.not_found(cell_id, cells)


def reread(cell_id: str) -> str:
    return f"call NotebookRead with cell_id='{cell_id}'"


def require_fresh(ctx: ToolContext, book: Notebook, cell: Cell) -> None:
    """`STALE_READ` unless the model read this cell and nobody changed it since (`NOT_READ` if it never read it)."""
    ctx.reads.require_fresh(
        ledger_key(book, cell.id),
        cell.source,
        what=f"cell '{cell.id}' of {book.name}",
        reread=reread(cell.id),
    )


async def cells_edited_since_read(ctx: ToolContext) -> list[str]:
    """The ids of this kernel's notebook's cells that the model read and someone changed since, in notebook
    order, each change told once (the kernel note). Nothing when no cell was read or the notebook cannot be
    read now: the note is a courtesy, the edit's own STALE_READ check is the guard."""
    provider = provider_of(ctx)
    path = provider.frontend.notebook or provider.default_path
    if path is None or not ctx.reads.keys_under(f"{path}#"):
        return []
    try:
        book = await provider.open()
        cells = await book.cells()
    except ToolError:
        return []
    changed = ctx.reads.changed_since_read({ledger_key(book, cell.id): cell.source for cell in cells})
    return [key.rpartition("#")[2] for key in changed]


def stale_while_waiting(book: Notebook, cell_id: str) -> ToolError:
    """The backend's atomic check failed: the cell changed between our read and the edit (the user typing)."""
    return ToolError(
        "STALE_READ",
        f"cell '{cell_id}' of {book.name} changed while the edit was waiting (the user is editing it?); "
        f"nothing was changed — {reread(cell_id)} and redo the change on its current source",
    )


def journal_cell_change(
    ctx: ToolContext,
    book: Notebook,
    op: CellOp,
    cell_id: str,
    undo: Sequence[Op | dict[str, Any]],
    after: str | None,
    tool: str,
    *,
    index: int | None = None,
) -> None:
    """Journal one change to a cell with the ops that undo it (`undo.cells`), guarded by the source it left, and
    where the cell stands after it (the review names cells by position)."""
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
            index=index,
        )
    )
