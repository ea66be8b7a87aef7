"""The kernel journal: what the agent's code (RunCode, each cell RunCell runs) changed in the user's namespace,
and what `%agent undo`, `rewind` and `review` need to put it back.

A data scientist's kernel holds work no file holds. Around each call `builtin_tools/kernel/state` records, per name the
code changed, how it stood before (`Before`: absent, the old object kept by reference, a copy taken before the
call, or lost with the reason) and what the code left there (`Pin`, plus a digest for an object changed in
place). Undo compares what is there now with what the code left, like a file's bytes: a name the user changed
since is kept.

Copies and old objects only the journal still holds cost memory: `KernelUndoStore` keeps them within
`kernel_undo_budget_mb`, dropping the oldest first; a dropped one becomes `lost`, and undo says so.
"""

from __future__ import annotations

import sys
import threading
import weakref
from dataclasses import dataclass, field
from typing import Literal

#: How a name changed over a call or a run, in the review's words (`undo.net`'s NetKind).
VariableKind = Literal["added", "changed", "deleted"]

#: An object larger than this (shallow) that cannot be weakly referenced is pinned by its id, not held.
_HOLD_AT_MOST = 64 * 1024
_NOTHING = object()


@dataclass(frozen=True, kw_only=True)
class Before:
    """How a name stood before the call: absent, an object to put back, or lost (`lost` says why)."""

    present: bool
    value: object = None
    #: True when `value` is a copy taken before the call (the object itself was changed in place).
    copied: bool = False
    #: Bytes the journal holds for it (a copy, or an old object nothing else holds): counted in the budget.
    held: int = 0
    #: Why it cannot be put back ("not copyable: an open file", "over the budget …"); "" when it can.
    lost: str = ""
    #: Said when it is put back (a rebound object that could not be copied may have been changed first).
    caveat: str = ""

    @property
    def restorable(self) -> bool:
        return not self.lost


ABSENT = Before(present=False)


class Pin:
    """Which object a name held after the call, compared by identity, without keeping a large object alive:
    a weak reference where the type allows one, the object itself when it is small, else its id and type."""

    __slots__ = ("_id", "_ref", "_strong", "_type")

    def __init__(self, obj: object) -> None:
        self._id = id(obj)
        self._type: type = type(obj)
        self._ref: weakref.ReferenceType[object] | None = None
        self._strong: object = _NOTHING
        try:
            self._ref = weakref.ref(obj)
        except TypeError:
            if sys.getsizeof(obj, _HOLD_AT_MOST + 1) <= _HOLD_AT_MOST:
                self._strong = obj

    def matches(self, obj: object) -> bool:
        if self._ref is not None:
            target = self._ref()
            return target is not None and target is obj
        if self._strong is not _NOTHING:
            return self._strong is obj
        return id(obj) == self._id and type(obj) is self._type


@dataclass(kw_only=True)
class VariableChange:
    """One name one call changed: how it stood before, and what the call left (None: the call deleted it)."""

    name: str
    kind: VariableKind
    #: True: the object itself was changed (a list appended to, a frame's column set); False: the name rebound.
    in_place: bool
    before: Before
    after: Pin | None
    #: A digest of what the call left (None: not taken, identity alone guards the undo).
    after_digest: bytes | None = None
    #: Why no digest was taken of what the call left (too large, not picklable): undo cannot rule out a later
    #: change, so it skips the name unless forced. '' when a digest was taken or none is needed (immutable).
    unchecked: str = ""
    #: The object is in place but may have changed and was not copied (`before.lost` says why): undo cannot
    #: say whether it changed, only that it cannot be put back.
    unknown: bool = False

    def drop(self, why: str) -> None:
        """Let go of what was held for undo (the budget needs the room); undo will say `why`."""
        self.before = Before(present=self.before.present, lost=why)


@dataclass(kw_only=True)
class KernelStep:
    """What one call (a RunCode, one cell of a RunCell) changed, in the order the namespace lists the names."""

    tool: str
    #: "RunCode" or "RunCell cell ab12": how undo and the history name the call.
    label: str
    call_id: str = ""
    changes: list[VariableChange] = field(default_factory=list[VariableChange])


Drop = tuple[VariableChange, int]


class KernelUndoStore:
    """What the kernel journal holds in memory, session-wide: each held copy or old object with its size, oldest
    first. `make_room` drops the oldest (their undo then says so) until a new one fits in the budget."""

    def __init__(self) -> None:
        self._held: list[Drop] = []
        self._lock = threading.Lock()

    @property
    def held_bytes(self) -> int:
        with self._lock:
            return sum(size for _, size in self._held)

    def make_room(self, nbytes: int, budget: int) -> bool:
        """Drop the oldest held objects until `nbytes` more fit within `budget`; False (nothing dropped) when
        `nbytes` alone is larger than the budget."""
        if nbytes > budget:
            return False
        with self._lock:
            total = sum(size for _, size in self._held)
            while self._held and total + nbytes > budget:
                change, size = self._held.pop(0)
                total -= size
                change.drop(
                    f"its {human_bytes(size)} copy was dropped to stay within the {human_bytes(budget)} "
                    "kernel_undo_budget_mb; newer copies took its place"
                )
        return True

    def hold(self, change: VariableChange) -> None:
        if change.before.held:
            with self._lock:
                self._held.append((change, change.before.held))

    def release(self, change: VariableChange) -> None:
        """`change` was undone or is no longer needed: its memory no longer counts."""
        with self._lock:
            self._held = [(c, size) for c, size in self._held if c is not change]


#: The default budget: this share of the memory available when the extension loads, at most 512 MB.
DEFAULT_BUDGET_SHARE = 0.10
DEFAULT_BUDGET_CAP_MB = 512


def default_budget_mb() -> float:
    """min(512 MB, 10 % of the memory available now); 512 MB when the system does not say."""
    available = available_memory()
    if available is None:
        return float(DEFAULT_BUDGET_CAP_MB)
    return float(min(DEFAULT_BUDGET_CAP_MB, int(available * DEFAULT_BUDGET_SHARE) // (1024 * 1024)))


def available_memory() -> int | None:
    """Bytes of memory available for new allocations (Linux: MemAvailable), or None when unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        import psutil  # pyright: ignore[reportMissingModuleSource]

        return int(psutil.virtual_memory().available)
    except Exception:  # not installed, or no answer on this system
        return None


def human_bytes(count: int) -> str:
    """`1.2 GB`, `82 MB`, `4.0 KB`, `120 bytes` (powers of 1024, as a process monitor shows them)."""
    if count < 1024:
        return f"{count} bytes"
    size, unit = count / 1024, "KB"
    for bigger in ("MB", "GB", "TB"):
        if size < 1024:
            break
        size, unit = size / 1024, bigger
    return f"{size:.1f} {unit}" if size < 10 else f"{size:.0f} {unit}"
