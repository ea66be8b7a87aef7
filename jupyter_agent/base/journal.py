"""The per-run record of changes, so a run can be undone and listed (`%agent undo`, `%agent history`).

A change keeps what undoing it takes: a file's bytes before and after a write, a cell operation's inverse. A
notebook file the agent writes is also rewritten as a whole (cell ids added, nbformat 4.5, v3 upgraded), which
no cell-level inverse takes back; so for each notebook file it wrote, a run keeps how to get the file's bytes
from before its first write back from the bytes after its last one (`NotebookFileWrite`): the few bytes that
differ, never the file. The file backend reports its writes through `journal_notebook_write` to the journal of
the run it belongs to (a context variable the session sets for its run).

Bytes are kept in the process's `JournalStore` (`journal_store.py`), which moves the oldest to disk past the
`undo_memory_mb` cap; `FileChange.before` / `.after` read them back from wherever they are.
"""

from __future__ import annotations

import contextvars
import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .journal_store import STORE, JournalStore, Kept
from .kernel_journal import KernelStep
from .notebook_shape import NotebookShape

#: What a NotebookEdit did to a cell, and so what undoing it means.
CellOp = Literal["insert", "replace", "delete", "move", "clear_outputs", "run"]
#: Where the review of one net change stands (`%agent review`): kept means reviewed, not "never undo".
ReviewState = Literal["pending", "kept", "undone"]


class FileChange:
    """A file write. `before` is None when the file did not exist; both are kept in the journal store."""

    __slots__ = ("_after", "_before", "call_id", "path", "tool")

    def __init__(
        self, *, path: Path, before: bytes | None, after: bytes, tool: str, call_id: str = ""
    ) -> None:
        self.path = path
        self.tool = tool
        #: The tool_use id of the call that made it (a call interrupted after its change landed is told so).
        self.call_id = call_id
        self._before = Kept(before) if before is not None else None
        self._after = Kept(after)

    @property
    def before(self) -> bytes | None:
        return self._before.read() if self._before is not None else None

    @property
    def after(self) -> bytes:
        return self._after.read()

    def kept(self) -> list[Kept]:
        return [k for k in (self._before, self._after) if k is not None]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FileChange):
            return NotImplemented
        mine = (self.path, self.tool, self.call_id, self.before, self.after)
        return mine == (other.path, other.tool, other.call_id, other.before, other.after)

    __hash__ = None  # type: ignore[assignment]  # compared by content, like the frozen dataclass it was

    def __repr__(self) -> str:
        size = "new" if self._before is None else f"{self._before.size} bytes"
        return f"FileChange(path={self.path!r}, before={size}, after={self._after.size} bytes, tool={self.tool!r})"


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
    #: The cell's place in the notebook after the change (0-based; None: not known), for naming it to the user.
    index: int | None = None


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
class Region:
    """`after[start:start + length]` replaced `before` (positions in the bytes after)."""

    start: int
    length: int
    before: Kept

    @property
    def end(self) -> int:
        return self.start + self.length


@dataclass(frozen=True, kw_only=True)
class Patch:
    """How to get bytes back from the bytes that replaced them: the regions that changed, in order, each with
    the bytes it replaced. Two cells edited far apart are two small regions, not everything between them."""

    regions: tuple[Region, ...]

    def apply(self, after: bytes) -> bytes:
        parts: list[bytes] = []
        at = 0
        for region in self.regions:
            parts += [after[at : region.start], region.before.read()]
            at = region.end
        parts.append(after[at:])
        return b"".join(parts)

    @classmethod
    def first(cls, write: NotebookWrite, store: JournalStore) -> Patch:
        before, after = write.before, write.after
        middle = before[write.head : len(before) - write.tail]
        length = len(after) - write.tail - write.head
        return cls(regions=(Region(start=write.head, length=length, before=store.keep(middle)),))

    def then(self, write: NotebookWrite, store: JournalStore) -> Patch:
        """This patch (which rebuilds the original from `write.before`) made to rebuild it from `write.after`:
        the regions the write touched merge with it into one, the ones after it move by the change in size."""
        before = write.before
        start, end = write.head, len(before) - write.tail  # what the write replaced, in `before`
        grown = (len(write.after) - write.tail - write.head) - (end - start)
        touched = [r for r in self.regions if r.start <= end and r.end >= start]
        low = min([start, *(r.start for r in touched)])
        high = max([end, *(r.end for r in touched)])
        original: list[bytes] = []
        at = low
        for region in touched:
            original += [before[at : region.start], region.before.read()]
            at = region.end
        original.append(before[at:high])
        merged = Region(start=low, length=high - low + grown, before=store.keep(b"".join(original)))
        kept = [r for r in self.regions if r.end < low]
        moved = [
            Region(start=r.start + grown, length=r.length, before=r.before)
            for r in self.regions
            if r.start > high
        ]
        return Patch(regions=(*kept, merged, *moved))

    @property
    def size(self) -> int:
        """The bytes it keeps."""
        return sum(region.before.size for region in self.regions)


@dataclass(frozen=True, kw_only=True)
class NotebookWrite:
    """One write of a notebook file, as the file backend reports it: the bytes before and after, their digests,
    how many bytes at the start (`head`) and at the end (`tail`) it left as they were, and the file's form before
    it (None: not known)."""

    before: bytes
    after: bytes
    before_digest: bytes
    after_digest: bytes
    head: int
    tail: int
    shape: NotebookShape | None = None

    @classmethod
    def of(cls, before: bytes, after: bytes, shape: NotebookShape | None = None) -> NotebookWrite:
        """Digests and the unchanged ends worked out from the bytes (the backend knows them without looking)."""
        head = same_head(before, after)
        tail = same_tail(before, after, min(len(before), len(after)) - head)
        return cls(
            before=before,
            after=after,
            before_digest=digest(before),
            after_digest=digest(after),
            head=head,
            tail=tail,
            shape=shape,
        )


@dataclass(frozen=True, kw_only=True)
class NotebookFileWrite:
    """A notebook file as the run found it (before its first write) and left it (after its last): the digests of
    both, the form it had, and how to rebuild its bytes before from the bytes after (`restore`)."""

    before_digest: bytes
    after_digest: bytes
    before_shape: NotebookShape | None
    #: None when the file changed between two of the run's writes (someone else wrote it in between): the bytes
    #: before cannot be rebuilt then, and putting them back would lose that change anyway.
    restore: Patch | None

    @property
    def continuous(self) -> bool:
        return self.restore is not None

    def before(self, after: bytes) -> bytes:
        """The file's bytes before the run, from `after` (the bytes it left: check `after_digest` first)."""
        assert self.restore is not None
        return self.restore.apply(after)


@dataclass(kw_only=True)
class RunJournal:
    """Changes made by one `%%agent` run, in order."""

    run_id: int
    request: str = ""
    #: Who asked for the run: "" for the agent, else an outside client's name (`%agent serve`).
    by: str = ""
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
    #: Where the journal's bytes are kept (memory up to a cap, then disk).
    store: JournalStore = field(default_factory=lambda: STORE, repr=False)
    #: What the run's RunCode and RunCell calls changed in the kernel's namespace (`base.kernel_journal`).
    kernel: list[KernelStep] = field(default_factory=list[KernelStep])
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def notebook_written(self, path: Path, write: NotebookWrite) -> None:
        with self._lock:
            first = self.notebook_files.get(path)
            if first is None:
                self.notebook_files[path] = NotebookFileWrite(
                    before_digest=write.before_digest,
                    after_digest=write.after_digest,
                    before_shape=write.shape,
                    restore=Patch.first(write, self.store),
                )
                return
            restore = first.restore
            if restore is not None and first.after_digest == write.before_digest:
                restore = restore.then(write, self.store)
            else:
                restore = None  # someone else wrote the file in between
            self.notebook_files[path] = NotebookFileWrite(
                before_digest=first.before_digest,
                after_digest=write.after_digest,
                before_shape=first.before_shape,
                restore=restore,
            )

    def record(self, change: Change) -> None:
        with self._lock:
            self.changes.append(change)
        if isinstance(change, FileChange):
            for kept in change.kept():
                self.store.adopt(kept)

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


def journal_notebook_write(path: Path, write: NotebookWrite) -> None:
    """A notebook file was written: the running run (if any) keeps how to undo it (outside a run, nothing)."""
    journal = _RUN_JOURNAL.get()
    if journal is not None:
        journal.notebook_written(path, write)


def digest(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def same_head(a: bytes, b: bytes) -> int:
    """How many bytes `a` and `b` share at the start (compared in growing chunks, then halved down)."""
    return _shared(a, b, min(len(a), len(b)), lambda x, lo, hi: x[lo:hi])


def same_tail(a: bytes, b: bytes, limit: int) -> int:
    """How many bytes, at most `limit`, `a` and `b` share at the end."""
    return _shared(a, b, limit, lambda x, lo, hi: x[len(x) - hi : len(x) - lo])


def _shared(a: bytes, b: bytes, limit: int, part: Callable[[bytes, int, int], bytes]) -> int:
    done, step = 0, 1 << 12
    while done < limit:
        upto = min(done + step, limit)
        if part(a, done, upto) != part(b, done, upto):
            while upto - done > 1:
                mid = (done + upto) // 2
                if part(a, done, mid) == part(b, done, mid):
                    done = mid
                else:
                    upto = mid
            return done
        done, step = upto, min(step * 2, 1 << 22)
    return limit
