"""The per-run record of changes, so a run can be undone and listed (`%agent undo`, `%agent history`).

Besides the changes themselves (a file's bytes, a cell operation and its inverse), a run keeps the bytes of
each notebook file it wrote, before its first write and after its last one (`notebook_files`): a notebook
file written by the agent is reformatted as a whole (cell ids added, nbformat 4.5, v3 upgraded), which no
cell-level inverse can take back. The file backend reports its writes through `journal_notebook_write`
to the journal of the run it belongs to (a context variable the session sets for its run).
"""

from __future__ import annotations

import contextvars
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .kernel_journal import KernelStep

#: What a NotebookEdit did to a cell, and so what undoing it means.
CellOp = Literal["insert", "replace", "delete"]
#: Where the review of one net change stands (`%agent review`): kept means reviewed, not "never undo".
ReviewState = Literal["pending", "kept", "undone"]


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


@dataclass(frozen=True, kw_only=True)
class NotebookFileWrite:
    """A notebook file as the run found it (before its first write) and as it left it (after its last)."""

    before: bytes
    after: bytes
    #: False when the file changed between two of the run's writes (someone else wrote it in between):
    #: then `before` is not what the file was just before `after`, and putting it back would lose that.
    continuous: bool = True


@dataclass(kw_only=True)
class RunJournal:
    """Changes made by one `%%agent` run, in order."""

    run_id: int
    request: str = ""
    changes: list[Change] = field(default_factory=list[Change])
    #: Set by `%agent undo` once every change of the run was reverted.
    undone: bool = False
    #: Each notebook file the run wrote, by path: its bytes before the first write and after the last.
    notebook_files: dict[Path, NotebookFileWrite] = field(default_factory=dict[Path, NotebookFileWrite])
    #: Where the run's request went in the conversation (`Conversation.position`) and in which generation of
    #: it: `%agent rewind` cuts the conversation back there. None: not known (a saved run before a compaction).
    message_start: tuple[int, int] | None = None
    generation: int = 0
    #: Set by `%agent rewind`: the run is gone from the conversation and cannot be rewound again.
    rewound: bool = False
    #: False for a run replayed from a saved session (`%agent resume`): its changes were not saved, so a
    #: rewind can only take back its conversation.
    changes_known: bool = True
    #: The saved session this run is recorded in and its number there (None: not saved), so that resuming
    #: that session in the same kernel finds the run rather than listing it twice.
    saved_as: tuple[str, int] | None = None
    #: The review of each net change (`undo.net`), by its key (a file's path, `notebook#cell id`); absent: pending.
    review: dict[str, ReviewState] = field(default_factory=dict[str, ReviewState])
    #: What the run's RunCode and RunCell calls changed in the kernel's namespace (`base.kernel_journal`).
    kernel: list[KernelStep] = field(default_factory=list[KernelStep])
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def notebook_written(self, path: Path, before: bytes, after: bytes) -> None:
        with self._lock:
            first = self.notebook_files.get(path)
            if first is None:
                self.notebook_files[path] = NotebookFileWrite(before=before, after=after)
            else:
                continuous = first.continuous and first.after == before
                self.notebook_files[path] = NotebookFileWrite(
                    before=first.before, after=after, continuous=continuous
                )

    def record(self, change: Change) -> None:
        with self._lock:
            self.changes.append(change)

    def record_kernel(self, step: KernelStep) -> None:
        with self._lock:
            self.kernel.append(step)

    def made_by(self, call_id: str) -> list[Change]:
        """The changes the call `call_id` made (none for an empty id)."""
        with self._lock:
            return [c for c in self.changes if call_id and c.call_id == call_id]


_RUN_JOURNAL: contextvars.ContextVar[RunJournal | None] = contextvars.ContextVar(
    "jupyter_agent_run_journal", default=None
)


def set_run_journal(journal: RunJournal) -> None:
    """Make `journal` the one the current run's writes report to (in the run's own context)."""
    _RUN_JOURNAL.set(journal)


def journal_notebook_write(path: Path, before: bytes, after: bytes) -> None:
    """A notebook file was written: the running run (if any) keeps its bytes (outside a run, nothing)."""
    journal = _RUN_JOURNAL.get()
    if journal is not None:
        journal.notebook_written(path, before, after)
