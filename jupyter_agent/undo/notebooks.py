"""Undoing a run's writes to a notebook file byte for byte, or saying exactly what stays.

A NotebookEdit on a file rewrites it as a whole: a file older than nbformat 4.5 gets cell ids and
`nbformat_minor: 5`, a v2/v3 file is upgraded to v4. Undoing the cell operations brings the cells back but
not that. So when the file is exactly as the run left it (and nobody wrote it between the run's writes),
undo puts back the bytes it had before the run; otherwise the cell-level undo runs and each notebook's
leftover differences are named (`what_stays`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..base.confined import read_confined, write_confined
from ..base.errors import ToolError
from ..base.journal import NotebookFileWrite, RunJournal
from ..base.json_values import is_array, is_object
from ..tools.context import ToolContext


async def restore_notebook_files(journal: RunJournal, ctx: ToolContext) -> set[Path]:
    """Put back, byte for byte, each notebook file the run wrote that is still exactly as it left it and
    is not open in a page (the page holds its own copy); the paths restored."""
    provider = ctx.services.notebooks
    roots = ctx.sandbox.roots
    restored: set[Path] = set()
    for path, write in journal.notebook_files.items():
        if not write.continuous or _read(path, roots) != write.after:
            continue  # also when it now leads elsewhere: the cell-level undo says why
        try:
            if (await provider.open(path)).live:
                continue
            write_confined(path, write.before, roots, exact=True)
        except (ToolError, OSError):
            continue  # swapped since it was read: the cell-level undo refuses it with the reason
        restored.add(path)
    return restored


def what_stays(path: Path, write: NotebookFileWrite, roots: Sequence[Path]) -> str | None:
    """After a cell-level undo: what of the run's write is still in the file, in one line (None: nothing, or the
    file no longer is where the run wrote it — its cells' steps said so)."""
    now = _read(path, roots)
    if now is None or now == write.before:
        return None
    differences = _differences(write.before, now)
    if now != write.after:
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


def _json(data: bytes) -> dict[str, Any] | None:
    try:
        value: object = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return None
    return value if is_object(value) else None


def _version(nb: dict[str, Any]) -> str:
    return f"{nb.get('nbformat')}.{nb.get('nbformat_minor')}"


def _cells(nb: dict[str, Any]) -> list[dict[str, Any]]:
    cells = nb.get("cells")
    if not is_array(cells):
        worksheets = nb.get("worksheets")
        first = worksheets[0] if is_array(worksheets) and worksheets else None
        cells = first.get("cells") if is_object(first) else None
    return [c for c in cells if is_object(c)] if is_array(cells) else []


def _differences(before: bytes, now: bytes) -> list[str]:
    old, new = _json(before), _json(now)
    if old is None or new is None:
        return ["the file's content"]
    found: list[str] = []
    if _version(old) != _version(new):
        found.append(f"nbformat {_version(old)} → {_version(new)}")
    if "worksheets" in old and "cells" in new:
        found.append("its cells moved out of the v3 worksheets")
    old_cells, new_cells = _cells(old), _cells(new)
    with_ids = sum(1 for c in new_cells if "id" in c) - sum(1 for c in old_cells if "id" in c)
    if with_ids > 0:
        found.append(f"ids added to {with_ids} cell(s)")
    keys = [
        str(c.get("id", i))
        for i, (c, o) in enumerate(zip(new_cells, old_cells, strict=False))
        if list(c) != list(o)
    ]
    if keys and not with_ids:
        found.append(f"the key order of {len(keys)} cell(s)")
    return found
