"""What the kernel journal says: before a call, in its approval (what it may change, and what undo could not
restore), and after it, in the result the model reads (which names it changed, and whether undo can restore
each), so the agent can warn before a destructive step."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ....base.kernel_journal import KernelStep, VariableChange, human_bytes
from .analysis import CodeEffects
from .copies import SILENT, CopyPlan, NotCopyable, plan_copy

#: Names listed in one note; the rest are counted.
MAX_NAMES = 20


def _listed(items: Sequence[str]) -> str:
    shown = ", ".join(items[:MAX_NAMES])
    return shown + (f" and {len(items) - MAX_NAMES} more" if len(items) > MAX_NAMES else "")


def approval_note(effects: CodeEffects, namespace: Mapping[str, Any], budget: int) -> str:
    """`this call may change model (1.2 GB, not restorable: …); %agent undo can restore df, x` — '' when the
    code touches no existing variable and runs nothing the analysis cannot read."""
    lost: list[str] = []
    restorable: list[str] = []
    pending = 0
    seen: dict[int, str] = {}
    named: set[str] = set()
    for name in effects.mutates_in_order:
        obj = namespace.get(name)
        if name not in namespace or isinstance(obj, SILENT):
            continue
        named.add(name)
        if id(obj) in seen:  # a second name for one object: as the first
            (restorable if seen[id(obj)] == "ok" else lost).append(name)
            continue
        plan = plan_copy(obj, max(budget - pending, 0))
        if isinstance(plan, CopyPlan):
            pending += plan.nbytes
            seen[id(obj)] = "ok"
            size = f" ({human_bytes(plan.nbytes)} copy)" if plan.nbytes >= 1024 * 1024 else ""
            restorable.append(name + size)
            continue
        seen[id(obj)] = "lost"
        size = f"{human_bytes(plan.nbytes)}, " if plan.nbytes else ""
        lost.append(
            f"{name} ({size}not restorable: {NotCopyable(why=plan.why, over_budget=plan.over_budget).reason(budget)})"
        )
    restorable += sorted(n for n in effects.rebinds if n in namespace and n not in named)
    parts: list[str] = []
    if lost:
        parts.append(f"this call may change {_listed(lost)}")
    if restorable:
        parts.append(f"%agent undo can restore {_listed(restorable)}")
    if effects.opaque:
        parts.append(
            f"{_listed(list(effects.opaque))} may change anything: undo restores the names it rebinds or "
            "deletes, not what it changes inside an object"
        )
    return "Kernel variables: " + "; ".join(parts) + "." if parts else ""


def _how(change: VariableChange) -> str:
    if change.unknown:
        return "may have changed in place"
    if change.kind == "changed":
        return "changed in place" if change.in_place else "rebound"
    return change.kind


def result_note(step: KernelStep | None, failure: str = "") -> str:
    """The line the model reads after the call's output: the names the code changed, grouped by what undo can do
    (`%agent undo restores: df (changed in place); %agent undo removes (new): tmp; not restorable: gen (…)`)."""
    if failure:
        return (
            f"\n[kernel journal: the changes this call made to variables could not be recorded ({failure}); "
            "%agent undo cannot restore them]"
        )
    if step is None or not step.changes:
        return ""
    restores = [f"{c.name} ({_how(c)})" for c in step.changes if c.kind != "added" and not c.before.lost]
    removes = [c.name for c in step.changes if c.kind == "added"]
    lost = [
        f"{c.name} ({_how(c)}; {c.before.lost})" for c in step.changes if c.kind != "added" and c.before.lost
    ]
    parts = [
        f"{label}: {_listed(items)}"
        for label, items in (
            ("%agent undo restores", restores),
            ("%agent undo removes (new)", removes),
            ("not restorable", lost),
        )
        if items
    ]
    return f"\n[kernel variables this code changed — {'; '.join(parts)}]"
