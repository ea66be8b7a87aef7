"""The per-run record of changes, so a run can be undone and listed (`%agent undo`, `%agent history`)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

#: What a NotebookEdit did to a cell, and so what undoing it means.
CellOp = Literal["insert", "replace", "delete"]


@dataclass(frozen=True, kw_only=True)
class FileChange:
    path: Path
    #: None when the file did not exist before the write.
    before: bytes | None
    after: bytes
    tool: str
    #: The tool_use id of the call that made it (a call interrupted after its change landed is told so).
    call_id: str = ""


@dataclass(frozen=True, kw_only=True)
class CellChange:
    notebook: str
    op: CellOp
    cell_id: str
    #: What it takes to reverse the operation (cell JSON, index, previous source), backend-neutral.
    inverse: dict[str, Any]
    after_source: str | None
    tool: str
    call_id: str = ""


Change = FileChange | CellChange


@dataclass(frozen=True)
class UndoStep:
    """What undoing one change did: `done`, or kept (the user changed it since) with the reason in `text`."""

    done: bool
    text: str

    @classmethod
    def kept(cls, subject: str, why: str) -> UndoStep:
        return cls(done=False, text=f"skipped {subject}: {why}")


@dataclass(kw_only=True)
class RunJournal:
    """Changes made by one `%%agent` run, in order."""

    run_id: int
    request: str = ""
    changes: list[Change] = field(default_factory=list[Change])
    #: Set by `%agent undo` once every change of the run was reverted.
    undone: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, change: Change) -> None:
        with self._lock:
            self.changes.append(change)

    def made_by(self, call_id: str) -> list[Change]:
        """The changes the call `call_id` made (none for an empty id)."""
        with self._lock:
            return [c for c in self.changes if call_id and c.call_id == call_id]
