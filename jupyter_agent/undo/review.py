"""Reviewing a run's net changes: Keep or Undo one of them, or all, and the list as text.

The journal holds the review state (`RunJournal.review`), so every view of it — the run's footer, `%agent
review`, a second look after a reload — shows the same. Keep only marks a change as reviewed; Undo reverts
it, guarded (`undo.net`), and a refusal leaves it pending with the reason.
"""

from __future__ import annotations

import difflib
import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..base.journal import RunJournal
from ..base.sandbox import Sandbox
from ..masking import clip
from ..tools.context import ToolContext
from .net import NetCellChange, NetChange, net_changes, undo_net_change
from .variables import NetVariableChange

Outcome = Literal["kept", "undone", "refused"]


class ReviewError(ValueError):
    """A target that names no change of the run: the message lists the ones it has."""


@dataclass(frozen=True, kw_only=True)
class ReviewResult:
    key: str
    outcome: Outcome
    text: str


def reviewed_run(history: Sequence[RunJournal], run_id: int | None) -> RunJournal | None:
    """Run `run_id`, or the newest run that changed something (None: no such run)."""
    if run_id is not None:
        found = next((j for j in history if j.run_id == run_id), None)
        if found is None:
            runs = ", ".join(str(j.run_id) for j in history) or "none yet"
            raise ReviewError(f"no run {run_id} in this session (runs: {runs}); see %agent history")
        return found
    return next((j for j in reversed(history) if net_changes(j)), None)


def select(journal: RunJournal, target: str, sandbox: Sandbox) -> list[NetChange]:
    """`all` (the pending ones), a cell id, or a file's path as shown or as given."""
    changes = net_changes(journal)
    if target == "all":
        return [c for c in changes if c.review == "pending"]
    resolved = str(sandbox.cwd / target) if not Path(target).is_absolute() else target
    chosen = [
        c
        for c in changes
        if (isinstance(c, NetCellChange) and c.cell_id == target)
        or c.key in (target, resolved)
        or c.label(sandbox) == target
    ]
    if not chosen:
        names = ", ".join(c.label(sandbox) for c in changes) or "nothing"
        raise ReviewError(f"run {journal.run_id} changed no {target!r}; it changed: {names}")
    return chosen


def keep(journal: RunJournal, changes: Sequence[NetChange], sandbox: Sandbox) -> list[ReviewResult]:
    results: list[ReviewResult] = []
    for change in changes:
        if change.review == "undone":
            results.append(
                ReviewResult(
                    key=change.key, outcome="refused", text=f"{change.label(sandbox)} was undone already"
                )
            )
            continue
        journal.review[change.key] = "kept"
        results.append(ReviewResult(key=change.key, outcome="kept", text=f"kept {change.label(sandbox)}"))
    return results


async def undo(journal: RunJournal, changes: Sequence[NetChange], ctx: ToolContext) -> list[ReviewResult]:
    """Undo each, newest first; one the user changed since stays, with the reason."""
    results: list[ReviewResult] = []
    for change in sorted(changes, key=lambda c: c.last, reverse=True):
        if change.review == "undone":
            text = f"{change.label(ctx.sandbox)} was undone already"
            results.append(ReviewResult(key=change.key, outcome="refused", text=text))
            continue
        step = await undo_net_change(change, journal, ctx)
        outcome: Outcome = "undone" if step.done else "refused"
        results.append(ReviewResult(key=change.key, outcome=outcome, text=step.text))
    return results


def line_counts(change: NetChange) -> str:
    """`+3 −1`: lines the run added and removed, net; for a variable, how it changed (`changed in place`). Every
    view of a review asks (the footer, its text, `%agent review`), so each pair is diffed once (kept by digest: the
    cache holds no file)."""
    if isinstance(change, NetVariableChange):
        return change.description.removeprefix("changed ") if change.kind == "changed" else ""
    if isinstance(change, NetCellChange):
        before, after = change.before_source or "", change.after_source or ""
    else:
        before = (change.before or b"").decode("utf-8", "replace")
        after = change.after.decode("utf-8", "replace")
    digest = hashlib.blake2b(digest_size=16)
    for text in (before, after):
        digest.update(len(text).to_bytes(8, "little"))
        digest.update(text.encode("utf-8", "surrogatepass"))
    key = digest.digest()
    with _COUNTED_LOCK:  # views are drawn on the main thread (a click) and on the worker (an action ended)
        counts = _COUNTED.get(key)
    if counts is None:
        counts = _count(before, after)
        with _COUNTED_LOCK:
            _COUNTED[key] = counts
            while len(_COUNTED) > _COUNTED_MAX:
                del _COUNTED[next(iter(_COUNTED))]
    return counts


_COUNTED: dict[bytes, str] = {}
_COUNTED_MAX = 512
_COUNTED_LOCK = threading.Lock()


def _count(before: str, after: str) -> str:
    old, new = before.splitlines(), after.splitlines()
    if not old or not new:  # created or emptied: nothing to diff
        return f"+{len(new)} −{len(old)}"
    diff = difflib.unified_diff(old, new, lineterm="", n=0)
    lines = [line for line in diff if not line.startswith(("+++", "---", "@@"))]
    added = sum(1 for line in lines if line.startswith("+"))
    return f"+{added} −{len(lines) - added}"


#: How a variable changed, in words (`NetVariableChange.description`).
_VARIABLE_WORDS = {"rebound": "changed", "changed in place": "changed in place"}
#: The first line of a cell, as the review names it, is cut after this many characters.
FIRST_LINE_CHARS = 30


def first_line(source: str) -> str:
    """The cell's first non-blank line, cut to `FIRST_LINE_CHARS` (`'# clean'`)."""
    line = next((line.strip() for line in source.splitlines() if line.strip()), "")
    return clip(line, FIRST_LINE_CHARS - 1) if len(line) > FIRST_LINE_CHARS else line


def said(change: NetChange, sandbox: Sandbox) -> str:
    """One change in words, as a person reads it: `cell 3 ('# clean') changed +1 −1`, `variable df changed`,
    `out.txt added +1 −0`. A cell is named by its position (1-based) and first line; its id when neither is known."""
    if isinstance(change, NetVariableChange):
        return f"variable {change.name} {_VARIABLE_WORDS.get(change.description, change.description)}"
    counts = line_counts(change)
    if not isinstance(change, NetCellChange):
        return f"{change.label(sandbox)} {change.kind} {counts}"
    index = change.index_before if change.kind == "deleted" else change.index
    where = f"cell {index + 1}" if index is not None else f"cell {change.cell_id}"
    line = first_line((change.before_source if change.kind == "deleted" else change.after_source) or "")
    named = f"{where} ('{line}')" if line else where
    return f"{named} {change.kind} {counts}"


def review_rows(journal: RunJournal, sandbox: Sandbox) -> list[tuple[str, str, str, str, str]]:
    """(what, name, kind, +/−, state) per net change."""
    return [
        (
            "cell"
            if isinstance(c, NetCellChange)
            else "variable"
            if isinstance(c, NetVariableChange)
            else "file",
            c.cell_id if isinstance(c, NetCellChange) else c.label(sandbox),
            c.kind,
            line_counts(c),
            c.review,
        )
        for c in net_changes(journal)
    ]


def review_text(journal: RunJournal, sandbox: Sandbox) -> str:
    """`run 7  cell ab12  changed  +1 −1  pending`, a line per net change."""
    rows = review_rows(journal, sandbox)
    by = (
        f"run {journal.run_id} by {journal.by} (outside, `%agent serve`): {journal.request}\n"
        if journal.by
        else ""
    )
    if not rows:
        return f"{by}run {journal.run_id} changed no cell, file or variable"
    width = max(len(f"{what} {name}") for what, name, *_ in rows)
    counted = max(7, *(len(counts) for *_, counts, _ in rows))  # `+3 −1`, or a variable's `in place`
    return by + "\n".join(
        f"run {journal.run_id}  {f'{what} {name}':<{width}}  {kind:<7}  {counts:<{counted}}  {state}"
        for what, name, kind, counts, state in rows
    )
