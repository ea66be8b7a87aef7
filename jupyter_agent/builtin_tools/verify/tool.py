"""VerifyNotebook: does the notebook run top to bottom from a clean kernel? (`%agent verify` for the user.)

The cells — the running notebook's current cells, from the page when it is open — run in a fresh, separate
kernel (fresh.py), never in the user's kernel, and the notebook file is only read. It executes code, so
it asks like RunCode does.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field

from ...base.json_values import is_object
from ...base.result import ToolResult, error_code
from ...startup_env import startup_environment
from ...tools.context import ToolContext
from ...tools.core import ToolAnnotations, ToolInput
from ..notebook.common import NotebookPathTool, open_notebook, provider_of, shown
from .fresh import FreshKernel, choose_spec, notebook_spec_name
from .plan import plan_cells
from .runner import CellRunner, Verification
from .verdict import live_only_hint, report_text, verdict

NOTEBOOK_FAILS = error_code("NOTEBOOK_FAILS")
#: Seconds each cell may run by default (nbclient has none: a hung cell would hang the check).
DEFAULT_CELL_TIMEOUT = 600
MAX_CELL_TIMEOUT = 3600
#: The tool's timeout is in milliseconds, as every tool's is (Claude Code's unit); the check runs in seconds.
_MS = 1000

DESCRIPTION = """\
Check that a notebook runs top to bottom from a clean state: its code cells run in order in a fresh, \
separate kernel (the notebook's kernel spec, in the directory a restart would use), stopping at the first \
error. The user's kernel and the notebook file are not touched; the cells run for real (files they write \
are written).
- Without notebook_path it checks this kernel's notebook as it is now (unsaved changes included).
- %%agent cells and %agent lines are skipped.
- Returns a one-line verdict, each code cell's id, status and seconds, and for the first failure the \
exception and traceback; when the failing cell uses a name that exists only in the user's live kernel \
(hidden state), it says so.
- Use it after changing cells, to show the notebook still reproduces; until_cell_id checks a prefix. \
It runs the user's code, so the user is asked first unless a rule allows it."""


class VerifyNotebookInput(ToolInput):
    notebook_path: str | None = None
    """The notebook to check, absolute or relative to the working directory. Omit it for this kernel's notebook."""
    timeout: int | None = Field(default=None, ge=_MS, le=MAX_CELL_TIMEOUT * _MS)
    """Milliseconds each cell may run before the check stops it and fails; default 600000 (10 minutes), max \
3600000 (1 hour)."""
    until_cell_id: str | None = None
    """Stop after this cell (it runs); the cells below it are not run."""


@dataclass(frozen=True, kw_only=True)
class Checked:
    """A finished verification, and the live-state hint for its failure ('' when none)."""

    result: Verification
    hint: str

    @property
    def verdict(self) -> str:
        return verdict(self.result, self.hint)

    def text(self, max_chars: int = 30_000) -> str:
        return report_text(self.result, self.hint, max_chars=max_chars)


def _file_metadata(path: Path) -> dict[str, Any]:
    """The notebook's top-level metadata on disk (for its kernel spec); {} when there is no readable file."""
    try:
        data: Any = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    metadata = data.get("metadata") if is_object(data) else None
    return dict(metadata) if is_object(metadata) else {}


async def verify_notebook(
    ctx: ToolContext,
    *,
    notebook_path: str | None = None,
    timeout: float | None = None,
    until_cell_id: str | None = None,
) -> Checked:
    """Run the notebook's code cells in a fresh kernel; the kernel is killed when this returns or is cancelled."""
    book = await open_notebook(ctx, notebook_path)
    name = shown(ctx, book)
    planned = plan_cells(await book.cells(), until_cell_id, name)
    own = notebook_path is None or book.live or book.path == provider_of(ctx).default_path
    cwd = ctx.sandbox.cwd if own else book.path.parent
    seconds = float(timeout or DEFAULT_CELL_TIMEOUT)
    chosen = choose_spec(notebook_spec_name(_file_metadata(book.path)))
    startup_env = startup_environment()
    started = time.monotonic()
    async with FreshKernel(chosen, cwd=cwd, env=startup_env) as kernel:
        reports, failure = await CellRunner(kernel, planned, timeout=seconds).run()
    result = Verification(
        notebook=name,
        kernel=chosen.description,
        cwd=cwd,
        timeout=seconds,
        cells=tuple(reports),
        failure=failure,
        seconds=time.monotonic() - started,
        until_cell_id=until_cell_id,
    )
    hint = ""
    if failure is not None:
        hint = live_only_hint(failure, namespace=ctx.namespace, live_env=os.environ, startup_env=startup_env)
    return Checked(result=result, hint=hint)


class VerifyNotebook(NotebookPathTool[VerifyNotebookInput]):
    name = "VerifyNotebook"
    description = DESCRIPTION
    kind = "execute"
    annotations = ToolAnnotations(read_only=False, destructive=True)  # its cells may write files
    Input = VerifyNotebookInput

    async def run(self, params: VerifyNotebookInput, ctx: ToolContext) -> ToolResult:
        checked = await verify_notebook(
            ctx,
            notebook_path=params.notebook_path,
            timeout=params.timeout / _MS if params.timeout is not None else None,
            until_cell_id=params.until_cell_id,
        )
        result = checked.result
        text = checked.text(ctx.sandbox.limits.max_output_chars)
        data = {
            "clean": result.clean,
            "seconds": round(result.seconds, 3),
            "cells": [{"id": c.id, "status": c.status, "seconds": c.seconds} for c in result.cells],
        }
        if result.failure is None:
            return ToolResult.ok(text, summary=checked.verdict, data=data)
        return ToolResult.error(NOTEBOOK_FAILS, text, summary=checked.verdict[:100], data=data)
