"""Undoing what a run's code changed in the kernel's variables: `%agent undo`, `%agent rewind`, the review's Undo.

A run's kernel journal (`RunJournal.kernel`, one step per RunCode call or RunCell cell) nets to one change per
name, like a file: how the name stood before the run's first change to it, and what the run's last change left.
Undo is guarded the way a file's is: a name is put back only while it still holds what the agent's code left
there (the same object, with the same content by its digest); a name the user changed since is kept, with the
reason. Where no digest could be taken (too large, not picklable) undo cannot rule out a later change: the name
is skipped, with the reason, unless `%agent undo --force` asks to put it back anyway. A name the run created is removed; one that could not be kept (not copyable, over the budget, a
copy dropped for newer ones) is said, never skipped in silence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..base.journal import ReviewState, RunJournal, UndoStep
from ..base.kernel_journal import Before, KernelStep, KernelUndoStore, Pin, VariableChange, VariableKind
from ..builtin_tools.kernel.journal.capture import DIGEST_LIMIT
from ..builtin_tools.kernel.journal.compare import digest
from ..tools.context import ToolContext

#: What undoing one name did.
Outcome = Literal["restored", "removed", "kept", "lost"]
_MISSING: Any = object()


@dataclass(frozen=True, kw_only=True)
class NetVariableChange:
    """One name a run changed: how it stood before the run's first change and what its last change left."""

    name: str
    kind: VariableKind
    #: Every step changed the object itself, never rebinding the name.
    in_place: bool
    before: Before
    after: Pin | None
    after_digest: bytes | None
    #: Why no digest of what the code left was taken ('' when one was, or none is needed).
    unchecked: str
    #: It may have changed in place and was not copied: nothing to compare, nothing to restore.
    unknown: bool
    review: ReviewState
    last: int
    #: The journal's records, released from the budget once the name is back.
    records: tuple[VariableChange, ...]

    @property
    def key(self) -> str:
        return f"kernel:{self.name}"

    def label(self, _sandbox: object = None) -> str:
        return self.name

    @property
    def description(self) -> str:
        """`changed in place`, `rebound`, `added`, `deleted`, `may have changed in place`."""
        if self.unknown:
            return "may have changed in place"
        if self.kind == "changed":
            return "changed in place" if self.in_place else "rebound"
        return self.kind


def net_variable_changes(journal: RunJournal) -> list[NetVariableChange]:
    """The run's variable changes, one per name, in the order the run first changed each (none that netted out)."""
    by_name: dict[str, list[tuple[int, VariableChange]]] = {}
    for position, step in enumerate(journal.kernel):
        for change in step.changes:
            by_name.setdefault(change.name, []).append((position, change))
    found: list[NetVariableChange] = []
    for name, changes in by_name.items():
        first, (last_at, last) = changes[0][1], changes[-1]
        if not first.before.present and last.after is None:
            continue  # created and deleted by the same run
        kind: VariableKind = (
            "added" if not first.before.present else "deleted" if last.after is None else "changed"
        )
        records = tuple(change for _, change in changes)
        found.append(
            NetVariableChange(
                name=name,
                kind=kind,
                in_place=all(change.in_place for change in records),
                before=first.before,
                after=last.after,
                after_digest=last.after_digest,
                unchecked=last.unchecked,
                unknown=all(change.unknown for change in records),
                review=journal.review.get(f"kernel:{name}") or ("undone" if journal.undone else "pending"),
                last=last_at,
                records=records,
            )
        )
    return found


@dataclass(frozen=True, kw_only=True)
class NameUndo:
    name: str
    outcome: Outcome
    #: Why it was kept or lost; a caveat for a restored one ('' when none).
    why: str = ""


def undo_variable(
    change: NetVariableChange, namespace: dict[str, Any], store: KernelUndoStore, *, force: bool = False
) -> NameUndo:
    """Put one name back unless the user changed it since, or (without `force`) undo cannot rule that out (see
    the module docstring)."""
    name = change.name
    if change.before.lost:
        return NameUndo(name=name, outcome="lost", why=change.before.lost)
    current = namespace.get(name, _MISSING)
    kept = _changed_since(change, current)
    if kept is None and change.unchecked and not force:
        kept = (
            f"undo cannot tell whether you changed it since the agent's code ran ({change.unchecked}); "
            "%agent undo --force puts it back anyway"
        )
    if kept is not None:
        return NameUndo(name=name, outcome="kept", why=kept)
    if change.before.present:
        namespace[name] = change.before.value
        outcome: Outcome = "restored"
    else:
        namespace.pop(name, None)
        outcome = "removed"
    for record in change.records:
        store.release(record)
    return NameUndo(name=name, outcome=outcome, why=change.before.caveat)


def _changed_since(change: NetVariableChange, current: object) -> str | None:
    """Why the name is kept (the user changed it after the agent's code ran), or None."""
    if change.after is None:
        if current is _MISSING:
            return None
        return "you defined it again after the agent's code deleted it; undoing would lose that"
    if current is _MISSING:
        if change.before.present:
            return "you deleted it after the agent's code changed it; there is nothing to restore over"
        return None  # created by the run, deleted since: already as it was
    if not change.after.matches(current):
        return "it holds another object since the agent's code ran (you assigned it); undoing would lose that"
    if change.after_digest is not None and digest(current, None if change.in_place else DIGEST_LIMIT) != (
        change.after_digest
    ):
        return "it changed after the agent's code ran (you changed it in place); undoing would lose that"
    return None


def describe_step(step: KernelStep) -> str:
    """`RunCode: changed model in place, deleted important, added tmp` (`%agent history`)."""
    words = {"added": "added {}", "deleted": "deleted {}"}
    said = [
        words[c.kind].format(c.name)
        if c.kind in words
        else f"{'may have changed' if c.unknown else 'changed'} {c.name}{' in place' if c.in_place else ''}"
        for c in step.changes
    ]
    return f"{step.label}: {', '.join(said[:12])}" + (f" and {len(said) - 12} more" if len(said) > 12 else "")


def undo_step(result: NameUndo) -> UndoStep:
    """One name's outcome as the review says it (`restored df`, `skipped variable df: …`)."""
    if result.outcome == "kept":
        return UndoStep.kept(f"variable {result.name}", result.why)
    if result.outcome == "lost":
        return UndoStep(done=False, text=f"variable {result.name} cannot be restored: {result.why}")
    verb = "restored" if result.outcome == "restored" else "removed"
    caveat = f" ({result.why})" if result.why else ""
    return UndoStep(done=True, text=f"{verb} variable {result.name}{caveat}")


def undo_run_variables(
    journal: RunJournal, ctx: ToolContext, *, force: bool = False
) -> tuple[list[str], bool]:
    """Undo every pending variable change of the run: the report's lines, and False when one was kept because
    the user changed it since, or undo could not tell (running undo again after resolving it, or with `force`,
    can still take it back)."""
    pending = [
        change for change in net_variable_changes(journal) if journal.review.get(change.key) != "undone"
    ]
    if not pending:
        return [], True
    namespace = ctx.namespace
    if namespace is None:
        return ["kernel variables were not restored: this session has no kernel namespace"], False
    results: list[NameUndo] = []
    for change in sorted(pending, key=lambda c: c.last, reverse=True):
        result = undo_variable(change, namespace, ctx.services.kernel_undo, force=force)
        if result.outcome in ("restored", "removed"):
            journal.review[change.key] = "undone"
        results.append(result)
    return report_lines(results), all(result.outcome != "kept" for result in results)


def report_lines(results: Sequence[NameUndo]) -> list[str]:
    """`restored 2 variables (important, model), removed 1 (tmp); not restorable: model_gpu (…)`, then a line per
    name kept because the user changed it since, and per caveat."""
    ordered = sorted(results, key=lambda r: (r.name.casefold(), r.name))
    restored = [r.name for r in ordered if r.outcome == "restored"]
    removed = [r.name for r in ordered if r.outcome == "removed"]
    lost = [f"{r.name} ({r.why})" for r in ordered if r.outcome == "lost"]
    parts: list[str] = []
    if restored:
        parts.append(f"restored {_count(len(restored), 'variable')} ({', '.join(restored)})")
    if removed:
        noun = "" if restored else " variable" if len(removed) == 1 else " variables"
        parts.append(f"removed {len(removed)}{noun} ({', '.join(removed)})")
    line = ", ".join(parts)
    if lost:
        line = (line + "; " if line else "") + f"not restorable: {', '.join(lost)}"
    lines = [line] if line else []
    lines += [undo_step(r).text for r in ordered if r.outcome == "kept"]
    lines += [f"{r.name} was restored {r.why}" for r in ordered if r.outcome == "restored" and r.why]
    return lines


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
