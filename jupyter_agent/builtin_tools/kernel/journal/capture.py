"""The kernel journal around one call: `before` the code runs, `after` it ends (also after an error, a timeout or
an interrupt), both on the kernel's main thread, inside `CodeRun`.

`before` keeps every binding of the namespace by reference (a shallow copy of the dict: the old object of a
name the code rebinds or deletes costs nothing) and copies the objects the analysis says the code may change in
place (`analysis.py`; how each type is copied and sized: `copies.py`), together with every other name bound to
the same object, within the budget: a copy that does not fit is made room for by dropping the oldest held ones
(`KernelUndoStore`); one larger than the whole budget, or one that cannot be copied, is not copied, and said.

`after` compares the namespace with what `before` kept: names added, deleted or rebound, and copied objects that
no longer equal their copy. A copy of an object that did not change is let go at once. An old object only the
journal still holds (the code rebound the one name that held it) counts in the budget like a copy. The
`KernelStep` goes into the run's journal, also when the tool stopped waiting for code that ran on.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass, field
from itertools import compress, islice
from operator import is_not
from types import FunctionType, MethodType, ModuleType
from typing import Any

from ....base.journal import RunJournal
from ....base.kernel_journal import (
    ABSENT,
    Before,
    KernelStep,
    KernelUndoStore,
    Pin,
    VariableChange,
    human_bytes,
)
from .analysis import CodeEffects
from .compare import fingerprint, same_value
from .copies import SILENT, CopyPlan, NotCopyable, is_immutable, plan_copy, size_of, take_copy

log = logging.getLogger(__name__)

#: Objects the code created or rebound are hashed (to see a later change by the user) up to this size of pickle
#: (array buffers are checked apart, `compare.BUFFER_LIMIT`); undo skips a larger one unless forced.
DIGEST_LIMIT = 16 * 1024 * 1024
_MISSING: Any = object()
#: Names Python itself puts in a namespace it runs code in: never the user's, never undone.
_NOT_THE_USERS = frozenset({"__builtins__"})


@dataclass
class _Kept:
    """A copy taken before the call, shared by every name bound to the original."""

    copy: object
    nbytes: int


@dataclass
class KernelWatch:
    """One call's watch (see the module docstring); `step` is set by `after`."""

    namespace: dict[str, Any]
    store: KernelUndoStore
    #: kernel_undo_budget_mb, in bytes.
    budget: int
    journal: RunJournal
    tool: str
    label: str
    call_id: str = ""
    step: KernelStep | None = None
    #: Why the journal could not record this call ('' when it did).
    failure: str = ""
    _names: dict[str, Any] | None = None
    _copies: dict[int, _Kept] = field(default_factory=dict[int, _Kept])
    _lost: dict[int, str] = field(default_factory=dict[int, str])
    _watched: set[str] = field(default_factory=set[str])
    #: The names compared after the call (None: every name of the namespace).
    _scope: frozenset[str] | None = None

    def before(self, effects: CodeEffects, referenced: frozenset[str] | None = None) -> None:
        """Keep the bindings the code can reach (`referenced`: every name its compiled code names; None: all of
        them), copy what it may change in place. An interrupt here stops the code before it starts; `after` then
        finds nothing changed."""
        namespace = self.namespace
        if referenced is None or _reaches_further(effects, referenced, namespace):
            self._names = names = dict(namespace)
        else:
            self._scope = scope = referenced | effects.rebinds | effects.mutates
            self._names = names = {name: namespace[name] for name in scope if name in namespace}
        wanted = [
            obj
            for name in effects.mutates_in_order
            if (obj := names.get(name, _MISSING)) is not _MISSING and not isinstance(obj, SILENT)
        ]
        if wanted:
            self._copy(wanted)

    def _copy(self, wanted: list[Any]) -> None:
        memo: dict[int, Any] = {}
        pending = 0
        for obj in wanted:
            if id(obj) in self._copies or id(obj) in self._lost:
                continue
            plan = plan_copy(obj, max(self.budget - pending, 0))
            if isinstance(plan, CopyPlan) and plan.way == "immutable":
                continue
            if isinstance(plan, CopyPlan) and not self.store.make_room(plan.nbytes, self.budget - pending):
                plan = NotCopyable(nbytes=plan.nbytes, over_budget=True)
            if isinstance(plan, NotCopyable):
                self._lost[id(obj)] = plan.reason(self.budget)
                continue
            try:
                self._copies[id(obj)] = _Kept(copy=take_copy(obj, plan.way, memo), nbytes=plan.nbytes)
                pending += plan.nbytes
            except Exception as exc:  # deepcopy refused something inside it (a file, a lock, a C object)
                self._lost[id(obj)] = f"copying it failed ({type(exc).__name__}: {exc})"
        kept = self._copies.keys() | self._lost.keys()
        # Every other name for a watched object is watched too (`b = a`; the code appends to `a`).
        self._watched = {name for name, value in self.namespace.items() if id(value) in kept}
        assert self._names is not None
        for name in self._watched:
            self._names[name] = self.namespace[name]
        if self._scope is not None:
            self._scope = self._scope | self._watched

    def after(self) -> None:
        """Compare, keep what undo needs, record the step. Never raises: a failure is said in the result."""
        try:
            self._record()
        except (
            Exception
        ) as exc:  # a bug of ours, or an object whose comparison blew up: the code's result stands
            log.warning("jupyter_agent: the kernel journal failed", exc_info=True)
            self.failure = f"{type(exc).__name__}: {exc}"
        finally:
            self._names = None
            self._copies = {}

    def _record(self) -> None:
        names = self._names
        if names is None:
            return
        step = KernelStep(tool=self.tool, label=self.label, call_id=self.call_id)
        now = self.namespace
        touched = self._touched(names, now) if self._scope is None else self._scope
        for name in sorted(touched, key=lambda n: (n.casefold(), n)):
            if name in _NOT_THE_USERS:
                continue
            change = self._change(name, names.get(name, _MISSING), now.get(name, _MISSING))
            if change is not None:
                step.changes.append(change)
        self._names = names = {}  # the shallow copy held the old objects: from here only the changes do
        for change in step.changes:
            self._charge(change)
        self.step = step
        if step.changes:
            self.journal.record_kernel(step)

    def _touched(self, names: dict[str, Any], now: dict[str, Any]) -> list[str]:
        """With every name kept: those rebound, added or deleted, and those watched for a change in place, found
        at C speed in the usual case (no name deleted: the namespace kept its order and only grew)."""
        before = list(names)
        after = list(now)
        if (
            after[: len(before)] != before
        ):  # a name was deleted (or deleted and bound again): compare them all
            return [*before, *(name for name in after if name not in names)]
        rebound = list(compress(before, map(is_not, names.values(), islice(now.values(), len(before)))))
        seen = set(rebound)
        return [
            *rebound,
            *(name for name in sorted(self._watched) if name not in seen),
            *after[len(before) :],
        ]

    def _change(self, name: str, old: Any, new: Any) -> VariableChange | None:
        """What happened to `name`: nothing (None), rebound, added or deleted, or its object changed in place."""
        if old is new:
            return None if old is _MISSING else self._in_place(name, old)
        before = ABSENT if old is _MISSING else self._old(old)
        if new is _MISSING:
            return VariableChange(name=name, kind="deleted", in_place=False, before=before, after=None)
        after_digest, unchecked = _fingerprint_of(new, DIGEST_LIMIT)
        return VariableChange(
            name=name,
            kind="added" if old is _MISSING else "changed",
            in_place=False,
            before=before,
            after=Pin(new),
            after_digest=after_digest,
            unchecked=unchecked,
        )

    def _in_place(self, name: str, obj: Any) -> VariableChange | None:
        """A name that still holds its object: changed when it no longer equals its copy; when it could not be
        copied, possibly changed (and not restorable)."""
        kept = self._copies.get(id(obj))
        if kept is not None:
            if same_value(kept.copy, obj):
                return None
            before = Before(present=True, value=kept.copy, copied=True, held=kept.nbytes)
            unknown = False
        elif name in self._watched and id(obj) in self._lost:
            before, unknown = Before(present=True, lost=self._lost[id(obj)]), True
        else:
            return None
        after_digest, unchecked = (None, "") if unknown else _fingerprint_of(obj, None)
        return VariableChange(
            name=name,
            kind="changed",
            in_place=True,
            before=before,
            after=Pin(obj),
            after_digest=after_digest,
            unchecked=unchecked,
            unknown=unknown,
        )

    def _old(self, old: Any) -> Before:
        """The object a rebound or deleted name held: its copy when the code also changed it in place first."""
        kept = self._copies.get(id(old))
        if kept is not None and not same_value(kept.copy, old):
            return Before(present=True, value=kept.copy, copied=True, held=kept.nbytes)
        caveat = ""
        if id(old) in self._lost:
            caveat = f"as it is now: it could not be copied before the call ({self._lost[id(old)]})"
        return Before(present=True, value=old, caveat=caveat)

    def _charge(self, change: VariableChange) -> None:
        """Count what the change holds in the budget: its copy, or an old object nothing but it still holds."""
        before = change.before
        if before.present and not before.copied and _worth_counting(before.value) and _only_held_by(change):
            nbytes = size_of(before.value, self.budget + 1)
            if nbytes >= 1024 * 1024:  # small leftovers are not worth a line in the budget
                change.before = Before(present=True, value=before.value, held=nbytes, caveat=before.caveat)
        if not change.before.held:
            return
        if change.before.copied or self.store.make_room(change.before.held, self.budget):
            self.store.hold(change)  # a copy's room was made before the call
        else:
            change.drop(
                f"{human_bytes(change.before.held)}, more than the {human_bytes(self.budget)} "
                "kernel_undo_budget_mb allows, and nothing else held the old object"
            )


def _reaches_further(effects: CodeEffects, referenced: frozenset[str], namespace: dict[str, Any]) -> bool:
    """True when the code may rebind names its own code does not name: it runs what the analysis cannot read
    (`exec`, `globals()`, a magic, `!cmd`), or calls code defined in the notebook (a function, a method of a
    class defined there), which may declare `global`. Then every name is compared, not just the ones it names."""
    if effects.opaque or "get_ipython" in referenced:
        return True
    for name in referenced:
        obj = namespace.get(name, _MISSING)
        if obj is not _MISSING and _defined_here(obj, namespace):
            return True
    return False


def _defined_here(obj: object, namespace: dict[str, Any]) -> bool:
    """A function or class defined in the notebook (its globals are the user's namespace), or an instance of one.
    Asked of the type, never of the object (a DataFrame answers unknown attributes through its columns)."""
    if isinstance(obj, MethodType):
        obj = obj.__func__
    if isinstance(obj, FunctionType):
        return obj.__globals__ is namespace
    if isinstance(obj, ModuleType):
        return False
    kind = obj if isinstance(obj, type) else type(obj)
    return kind.__module__ == namespace.get("__name__", "__main__")


def _fingerprint_of(obj: object, limit: int | None) -> tuple[bytes | None, str]:
    """What a name the code left holds, to see a later change in place by the user: its digest, or why none was
    taken (too large to hash each call, not picklable). Neither for a value no one can change in place, where
    identity is the whole story."""
    if is_immutable(obj):
        return None, ""
    found = fingerprint(obj, limit)
    return (found, "") if isinstance(found, bytes) else (None, found)


def _worth_counting(value: object) -> bool:
    """False for a small value no one can change (a number, a short string): not worth a walk or a line."""
    return not (is_immutable(value) and sys.getsizeof(value) < 1024 * 1024)


def _only_held_by(change: VariableChange) -> bool:
    """True when nothing but this change refers to the old object (the code rebound the only name for it)."""
    # The references counted: the `Before` field, and getrefcount's own argument.
    return sys.getrefcount(change.before.value) <= 2
