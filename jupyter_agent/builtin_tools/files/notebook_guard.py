"""The file tools (Write, Edit, MultiEdit) on an `.ipynb` path: the kernel's own notebook is never written as a
file while a frontend holds it (`notebook.access` is the one rule); NotebookEdit changes its cells instead."""

from __future__ import annotations

import os
from pathlib import Path

from ...base.errors import ToolError
from ...notebook.access import WriteDecision, decide_write
from ...tools.context import ToolContext


def _whole_file_refusal(decision: WriteDecision, shown_path: str) -> ToolError | None:
    """Why Write / Edit / MultiEdit may not write this `.ipynb` file (None: the file tools' own rules apply)."""
    if decision.kind == "refuse":
        return decision.refused()
    if not decision.own or decision.kind == "file":
        return None
    if decision.kind == "live":
        how = "it is open live in JupyterLab, so its cells change through the page, not its file"
    else:
        how = f"{decision.reason}. NotebookEdit shows a change to the user as a proposal to apply"
    return ToolError(
        "INVALID_ARGS",
        f"'{shown_path}' is this kernel's own notebook and is never written as a file while a frontend holds "
        f"it: {how}. Change its cells with NotebookEdit (NotebookRead shows the cell ids)",
    )


async def guard_notebook_file(ctx: ToolContext, file_path: str) -> None:
    """The file tools on an `.ipynb` path go through the one rule (`notebook.access`) before anything else."""
    notebooks = ctx.services.notebooks
    real = Path(os.path.realpath(ctx.sandbox.resolve_path(file_path)))
    if real.suffix.lower() != ".ipynb":
        return
    refusal = _whole_file_refusal(await notebooks.decide(real), ctx.sandbox.display_path(real))
    if refusal is not None:
        raise refusal


def check_notebook_file(ctx: ToolContext, real: Path) -> None:
    """The same rule at the moment a file is written, from what is known of the frontend (no waiting): a
    tool that skipped `guard_notebook_file` still cannot write the kernel's own notebook."""
    notebooks = ctx.services.notebooks
    if real.suffix.lower() != ".ipynb":
        return
    refusal = _whole_file_refusal(decide_write(notebooks.frontend, real), ctx.sandbox.display_path(real))
    if refusal is not None:
        raise refusal
