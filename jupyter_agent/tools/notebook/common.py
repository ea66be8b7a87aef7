"""What the notebook tools share: finding the notebook (sandboxed), read-ledger keys, and error texts."""

from __future__ import annotations

from pathlib import Path

from ...base.errors import ToolError
from ...notebook.base import Notebook
from ...notebook.cells import Cell
from ...notebook.provider import NotebookProvider, kernel_notebook_path
from ..context import ToolContext
from ..core import InputT, Tool


def provider_of(ctx: ToolContext) -> NotebookProvider:
    """The session's `notebooks` service; outside a kernel, a file-only provider for the env's notebook."""
    if ctx.services.notebooks is None:
        ctx.services.notebooks = NotebookProvider(default_path=kernel_notebook_path())
    return ctx.services.notebooks


class NotebookPathTool(Tool[InputT]):
    """A tool with an optional `notebook_path`: rules like `NotebookEdit(reports/**)` match it, and a missing
    path means this kernel's notebook."""

    rule_field = "notebook_path"
    rule_kind = "path"

    def rule_path(self, params: InputT, ctx: ToolContext) -> Path | None:
        if getattr(params, "notebook_path", None) is None:
            return provider_of(ctx).default_path
        return super().rule_path(params, ctx)


async def open_notebook(ctx: ToolContext, notebook_path: str | None) -> Notebook:
    """The notebook the model named (confined to the sandbox), or this kernel's notebook for None."""
    provider = provider_of(ctx)
    if notebook_path is None:
        book = await provider.open(None)
        ctx.sandbox.confine(str(book.path))
        return book
    real = ctx.sandbox.confine(notebook_path)
    if real.suffix.lower() != ".ipynb":
        raise ToolError(
            "INVALID_ARGS",
            f"'{ctx.sandbox.display_path(real)}' is not a notebook (.ipynb); use Read, Edit or Write for other files",
        )
    return await provider.open(str(real))


def shown(ctx: ToolContext, book: Notebook) -> str:
    return ctx.sandbox.display_path(book.path)


def ledger_key(book: Notebook, cell_id: str) -> str:
    """`<real path>#<cell id>`: the key Read uses for notebook cells too, so either read counts."""
    return f"{book.path}#{cell_id}"


def find(cells: list[Cell], cell_id: str, book: Notebook) -> tuple[int, Cell]:
    for index, cell in enumerate(cells):
        if cell.id == cell_id:
            return index, cell
    raise book.not_found(cell_id)


def reread(cell_id: str) -> str:
    return f"call NotebookRead with cell_id='{cell_id}'"


def require_fresh(ctx: ToolContext, book: Notebook, cell: Cell) -> None:
    """`STALE_READ` unless the model read this cell and nobody changed it since."""
    ctx.reads.require_fresh(
        ledger_key(book, cell.id),
        cell.source,
        what=f"cell '{cell.id}' of {book.name}",
        reread=reread(cell.id),
    )


def stale_while_waiting(book: Notebook, cell_id: str) -> ToolError:
    """The backend's atomic check failed: the cell changed between our read and the edit (the user typing)."""
    return ToolError(
        "STALE_READ",
        f"cell '{cell_id}' of {book.name} changed while the edit was waiting (the user is editing it?); "
        f"nothing was changed — {reread(cell_id)} and redo the change on its current source",
    )


LIVE_NOTE = "It shows live in JupyterLab; the file on disk changes when the user saves."
