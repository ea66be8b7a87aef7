"""`%agent rewind [N] [--keep-changes]`: the words parsed, the rewind run on the worker (it may undo cells
in the live page, whose replies this thread keeps flowing), its report returned as text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .command_error import CommandError

if TYPE_CHECKING:
    from .kernel_agent import KernelAgent

REWIND_HELP = (
    "back to before run N (default: the last run): the conversation loses those runs and their changes to "
    "files, cells and variables are undone (what you changed since is kept); --keep-changes rewinds only the "
    "conversation"
)
USAGE = (
    "usage: %agent rewind [N] [--keep-changes]  (N: a run number from %agent history; default the last run)"
)


def rewind_arguments(args: list[str]) -> tuple[int | None, bool]:
    """`[N] [--keep-changes]` in any order → (run id or None, keep changes)."""
    run_id: int | None = None
    keep = False
    for word in args:
        if word == "--keep-changes":
            keep = True
        elif word.isdigit() and run_id is None and int(word) > 0:
            run_id = int(word)
        else:
            raise CommandError(f"%agent rewind: unexpected {word!r}; {USAGE}")
    return run_id, keep


def rewind_command(agent: KernelAgent, args: list[str]) -> str:
    from ..undo.rewind import RewindRefused, choose, rewind

    run_id, keep = rewind_arguments(args)
    session = agent.session
    try:
        journal = choose(session, run_id)
    except RewindRefused as exc:
        raise CommandError(f"%agent rewind: {exc}") from None
    taken_back = [j for j in session.history if j.run_id >= journal.run_id]
    said = agent.run_blocking(rewind(session, journal, keep_changes=keep))
    agent.review_pages.publish(taken_back)  # the page's marks and those runs' reviews follow
    return said
