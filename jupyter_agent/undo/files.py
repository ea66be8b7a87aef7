"""Undoing a file write: restore the bytes from before it, or remove a file the agent created."""

from __future__ import annotations

import asyncio
import difflib

from ..base.journal import FileChange, UndoStep
from ..base.sandbox import Sandbox, atomic_write


def _changed_lines(expected: str, current: str) -> int:
    diff = difflib.unified_diff(expected.splitlines(), current.splitlines(), lineterm="", n=0)
    return sum(1 for line in diff if line[:1] in "+-" and not line.startswith(("+++", "---")))


async def undo_file_change(change: FileChange, sandbox: Sandbox) -> UndoStep:
    """Revert one write unless the file changed since; `done` is False when it was kept."""
    name = sandbox.display_path(change.path)
    try:
        current: bytes | None = await asyncio.to_thread(change.path.read_bytes)
    except FileNotFoundError:
        current = None
    if current != change.after:
        if current is None:
            return UndoStep.kept(name, "it was deleted after the agent wrote it; nothing to restore over")
        lost = _changed_lines(change.after.decode("utf-8", "replace"), current.decode("utf-8", "replace"))
        return UndoStep.kept(
            name,
            f"it changed after the agent wrote it ({lost} line(s) differ); undoing would lose "
            "those changes — edit it by hand or ask the agent",
        )
    if change.before is None:
        await asyncio.to_thread(change.path.unlink)
        return UndoStep(done=True, text=f"removed {name} (the agent had created it)")
    await asyncio.to_thread(atomic_write, change.path, change.before)
    return UndoStep(done=True, text=f"restored {name}")
