"""Undoing a run's writes to a notebook file byte for byte, or saying exactly what stays.

A NotebookEdit on a file rewrites it as a whole: a file older than nbformat 4.5 gets cell ids and
`nbformat_minor: 5`, a v2/v3 file is upgraded to v4. Undoing the cell operations brings the cells back but
not that. So when the file is exactly as the run left it (and nobody wrote it between the run's writes),
undo puts back the bytes it had before the run; otherwise the cell-level undo runs and each notebook's
leftover differences are named (`what_stays`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..base.confined import read_confined, write_confined
from ..base.errors import ToolError
from ..base.journal import NotebookFileWrite, RunJournal, digest
from ..base.notebook_shape import NotebookShape
from ..tools.context import ToolContext


async def restore_notebook_files(journal: RunJournal, ctx: ToolContext) -> set[Path]:
    """Put back, byte for byte, each notebook file the run wrote that is still exactly as it left it and
    is not open in a page (the page holds its own copy); the paths restored."""
    provider = ctx.services.notebooks
    roots = ctx.sandbox.roots
    restored: set[Path] = set()
    for path, write in journal.notebook_files.items():
        now = _read(path, roots)
        if not write.continuous or now is None or digest(now) != write.after_digest:
            continue  # also when it now leads elsewhere: the cell-level undo says why
        try:
            if (await provider.open(path)).live:
                continue
            write_confined(path, write.before(now), roots, exact=True)
        except (ToolError, OSError):
            continue  # swapped since it was read: the cell-level undo refuses it with the reason
        restored.add(path)
    return restored


def what_stays(path: Path, write: NotebookFileWrite, roots: Sequence[Path]) -> str | None:
    """After a cell-level undo: what of the run's write is still in the file, in one line (None: nothing, or the
    file no longer is where the run wrote it — its cells' steps said so)."""
    now = _read(path, roots)
    if now is None or digest(now) == write.before_digest:
        return None
    shape = NotebookShape.of_bytes(now)
    differences = (
        write.before_shape.differences(shape)
        if write.before_shape is not None and shape is not None
        else ["the file's content"]
    )
    if digest(now) != write.after_digest:
        why = "it changed after the agent's last write"
    elif not write.continuous:
        why = "it changed between the agent's writes"
    else:
        why = "it is open in a page, which holds its own copy"
    return f"kept in {path.name} ({why}, so only its cells were undone): " + (
        "; ".join(differences) if differences else "its formatting (whitespace or key order)"
    )


def _read(path: Path, roots: Sequence[Path]) -> bytes | None:
    """The file's bytes, read under `base.confined` at the path the run wrote (None: gone, or it leads elsewhere)."""
    try:
        return read_confined(path, roots, exact=True)
    except (OSError, ToolError):
        return None
