"""Undoing a file write: restore the bytes from before it, or remove a file the agent created.

Every read, write and delete here goes through `base.confined` with the path the write recorded (a real path):
if that path now leads elsewhere through a symlink (the file or a folder on its way was swapped for a link), or
left the roots, the step is refused with the reason and nothing is touched.
"""

from __future__ import annotations

import asyncio
import difflib

from ..base.confined import read_confined, unlink_confined, write_confined
from ..base.errors import ToolError
from ..base.journal import FileChange, UndoStep
from ..base.journal_store import UndoRecordLost
from ..base.sandbox import Sandbox


def _changed_lines(expected: str, current: str) -> int:
    diff = difflib.unified_diff(expected.splitlines(), current.splitlines(), lineterm="", n=0)
    return sum(1 for line in diff if line[:1] in "+-" and not line.startswith(("+++", "---")))


async def undo_file_change(change: FileChange, sandbox: Sandbox) -> UndoStep:
    """Revert one write unless the file changed since or no longer is where it was; `done` is False when kept."""
    name = sandbox.display_path(change.path)
    roots = sandbox.roots
    try:
        before, after = change.before, change.after  # a record refused on read-back writes nothing
    except UndoRecordLost as exc:
        return UndoStep.kept(name, str(exc))
    try:
        current: bytes | None = await asyncio.to_thread(read_confined, change.path, roots, exact=True)
    except FileNotFoundError:
        current = None
    except (ToolError, OSError) as exc:
        return UndoStep.kept(name, _why(exc))
    if current != after:
        if current is None:
            return UndoStep.kept(name, "it was deleted after the agent wrote it; nothing to restore over")
        lost = _changed_lines(after.decode("utf-8", "replace"), current.decode("utf-8", "replace"))
        return UndoStep.kept(
            name,
            f"it changed after the agent wrote it ({lost} line(s) differ); undoing would lose "
            "those changes — edit it by hand or ask the agent",
        )
    try:
        if before is None:
            await asyncio.to_thread(unlink_confined, change.path, roots)
            return UndoStep(done=True, text=f"removed {name} (the agent had created it)")
        await asyncio.to_thread(write_confined, change.path, before, roots, exact=True)
    except (ToolError, OSError) as exc:
        return UndoStep.kept(name, _why(exc))
    return UndoStep(done=True, text=f"restored {name}")


def _why(exc: ToolError | OSError) -> str:
    """A refusal in the user's terms: the confinement rule's own message, or the OS's."""
    if isinstance(exc, ToolError):
        return exc.message
    return f"it cannot be reached ({exc.strerror or type(exc).__name__}); nothing was changed"
