"""`%agent review [RUN]` and `%agent review keep|undo all|CELL_ID|PATH`: the run's review from any frontend.

Without an action it shows the review of run RUN (default: the newest run that changed something) as the
same widget the run's footer has, or as text where no widget can be clicked (a terminal, nbclient). An action
applies to the newest run that changed the cell or file named (`all`: the newest run with changes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base.journal import RunJournal
from ..undo.net import net_changes
from ..undo.review import ReviewError, reviewed_run, select

if TYPE_CHECKING:
    from .kernel_agent import KernelAgent

USAGE = "%agent review [RUN] | %agent review keep|undo all|CELL_ID|PATH"
REVIEW_HELP = (
    "the last run's changed cells, files and variables, each with Keep / Undo (Undo refuses what you changed since); "
    "`%agent review undo CELL_ID`, `keep PATH`, `undo all`"
)


class ReviewUsageError(ValueError):
    """A mistake in the command line or a target no run changed; `host/commands.py` shows it as usage."""


def review_command(agent: KernelAgent, args: list[str]) -> str | None:
    session = agent.session
    if args and args[0] in ("keep", "undo"):
        if len(args) != 2:
            raise ReviewUsageError(
                f"%agent review {args[0]} needs one target: all, a cell id or a path ({USAGE})"
            )
        action, target = args[0], args[1]
        journal = _run_with(agent, target)
        found = agent.review_pages.review_of(journal)
        results = agent.run_blocking(found.apply("keep" if action == "keep" else "undo", target))
        found.on_change()
        return "\n".join(r.text for r in results) or f"nothing pending in run {journal.run_id}"
    if len(args) > 1 or (args and not args[0].isdigit()):
        raise ReviewUsageError(f"usage: {USAGE}")
    try:
        journal = reviewed_run(session.history, int(args[0]) if args else None)
    except ReviewError as exc:
        raise ReviewUsageError(str(exc)) from None
    if journal is None:
        return "no run has changed a cell, file or variable yet"
    found = agent.review_pages.review_of(journal)
    if not found.changed or agent.kernel is None or _no_widgets(agent):
        return found.text() + f"\n(keep or undo: {USAGE.split(' | ')[1]})"
    agent.review_pages.show(found)
    return None


def _run_with(agent: KernelAgent, target: str) -> RunJournal:
    """The newest run whose review has `target` (`all`: the newest run with changes)."""
    session = agent.session
    if target == "all":
        journal = reviewed_run(session.history, None)
        if journal is None:
            raise ReviewUsageError("no run has changed a cell, file or variable yet")
        return journal
    last_error: ReviewError | None = None
    for journal in reversed(session.history):
        if not net_changes(journal):
            continue
        try:
            select(journal, target, session.ctx.sandbox)
            return journal
        except ReviewError as exc:
            last_error = last_error or exc
    raise ReviewUsageError(
        str(last_error) if last_error else "no run has changed a cell, file or variable yet"
    )


def _no_widgets(agent: KernelAgent) -> bool:
    from ..ui.presenter import no_one_can_answer

    return no_one_can_answer(agent.kernel, agent.kernel_signals()) is not None
