"""`%agent rewind [N]`: back to the state before run N — the conversation, and (unless kept) the changes.

The conversation is cut where run N's request went in (`RunJournal.message_start`), so the next request no
longer carries run N or any later run; the cut is saved (a `rewind` record and a `messages` record from
the cut), so `%agent resume` replays it. The runs' file, cell and kernel-variable changes are undone newest first
through `%agent undo`'s guarded steps: what the user changed since is kept, with the reason.

A position only points into the conversation it was taken in: after a compaction (its runs were folded
into a summary), a reset or a resume, an older run cannot be rewound, and the refusal says which can.
Runs replayed from a saved session rewind only their conversation: their changes were not saved. The todo list
goes back to what run N found. The read ledger is cleared (the model no longer saw what the rewound runs read), so the next edit needs a fresh read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base.journal import RunJournal
from ..builtin_tools.workflow import todo_list
from .run import undo_run

if TYPE_CHECKING:
    from ..agent.session import AgentSession

#: What a rewind cannot take back, said every time.
NOT_REWOUND = (
    "not rewound: background jobs, MCP servers' state, and what the kernel journal cannot see (a function "
    "changing a global it was not given, C extensions' state, databases, the network); files and cells are "
    "read again before the agent edits them"
)
_REPLACED = {
    "reset": (
        "REWIND_PAST_RESET",
        "the conversation was reset (%agent reset) after run {n} began; its changes can still be undone with "
        "%agent undo",
    ),
    "resume": (
        "REWIND_PAST_RESUME",
        "another saved session was resumed (%agent resume) after run {n} began; its changes can still be "
        "undone with %agent undo",
    ),
}


class RewindRefused(ValueError):
    """The rewind cannot be done as asked; the message says why and what can be done instead."""


def rewindable(session: AgentSession) -> list[RunJournal]:
    """The runs `%agent rewind` takes, oldest first: not rewound yet, their start known in this conversation."""
    generation = session.conversation.generation
    return [
        j
        for j in session.history
        if not j.rewound and j.message_start is not None and j.generation == generation
    ]


def choose(session: AgentSession, run_id: int | None) -> RunJournal:
    """The run to rewind to (None: the last one), or a refusal naming the runs that can be."""
    if session.running:
        raise RewindRefused("REWIND_REFUSED: a run is in progress; stop it first (■), then rewind")
    runs = [j for j in session.history if not j.rewound]
    valid = rewindable(session)
    which = ", ".join(str(j.run_id) for j in valid)
    if run_id is None:
        if not valid:
            raise RewindRefused(_nothing(session, runs))
        return valid[-1]
    matches = [j for j in session.history if j.run_id == run_id]
    if not matches:
        raise RewindRefused(
            f"RUN_NOT_FOUND: there is no run {run_id}"
            + (f"; runs that can be rewound: {which}" if valid else f"; {_nothing(session, runs)}")
            + " (%agent history lists them)"
        )
    journal = matches[-1]
    if journal.rewound:
        raise RewindRefused(
            f"ALREADY_REWOUND: run {run_id} was rewound already"
            + (f"; runs that can be rewound: {which}" if valid else "")
        )
    if journal in valid:
        return journal
    later = f"rewind to run {valid[0].run_id} or later, or %agent reset" if valid else "use %agent reset"
    known = journal.message_start is not None  # unknown: a saved run from before a compaction
    reason = session.replaced_by.get(journal.generation + 1, "compaction") if known else "compaction"
    if reason in _REPLACED:
        code, text = _REPLACED[reason]
        raise RewindRefused(f"{code}: {text.format(n=run_id)}; {later}")
    raise RewindRefused(
        f"REWIND_PAST_COMPACTION: the conversation before run {run_id} was summarised (compacted), so it "
        f"cannot be cut there; {later}"
    )


def _todos_back(session: AgentSession, run_id: int) -> list[str]:
    """The todo list as run `run_id` found it (a run resumed from a saved session: not known, left as it is)."""
    before = session.todos_before.get(run_id)
    todos = todo_list(session.ctx)
    if before is None or before == todos.items:
        return []
    todos.replace(before)
    return [f"the todo list is back as run {run_id} found it ({len(before)} item(s))"]


def _nothing(session: AgentSession, runs: list[RunJournal]) -> str:
    if not session.history:
        return "nothing to rewind: no runs yet"
    if not runs:
        return "nothing to rewind: every run was rewound already"
    return "nothing to rewind: no run since the last compaction, reset or resume (%agent reset starts over)"


async def rewind(session: AgentSession, journal: RunJournal, *, keep_changes: bool) -> str:
    """Cut the conversation before `journal`'s run, undo its and every later run's changes (unless
    `keep_changes`), mark them rewound; what was done, one line each."""
    assert journal.message_start is not None
    # The runs of this conversation from `journal` on (runs of an earlier conversation, before a reset or a
    # resume, are not in it, so they are left alone).
    gone = [j for j in rewindable(session) if j.run_id >= journal.run_id]
    dropped = session.conversation.truncate(journal.message_start)
    session.conversation.repair()
    recorder = session.recorder
    if recorder is not None and recorder.started:
        recorder.rewound(to_run=journal.run_id, message_start=journal.message_start)
        recorder.sync(session.conversation)
    ids = [j.run_id for j in gone]
    span = f"run {ids[0]}" if len(ids) == 1 else f"runs {', '.join(map(str, ids))}"
    lines = [f"rewound to before run {journal.run_id}: the conversation lost {span} ({dropped} message(s))"]
    for run in reversed(gone):
        run.rewound = True
        if keep_changes:
            continue
        if not run.changes_known:
            lines.append(
                f"run {run.run_id} was resumed from a saved session: its file and cell changes were not saved, "
                "so only its conversation was rewound"
            )
        elif run.undone:
            lines.append(f"run {run.run_id}: its changes were undone already")
        elif run.changes or run.kernel:
            lines.append(await undo_run(run, session.ctx))
    if keep_changes:
        lines.append("files, cells and variables were left as they are (--keep-changes)")
    lines += _todos_back(session, journal.run_id)
    # The model no longer saw what the rewound runs read: every edit needs a fresh read, as after a resume.
    session.ctx.reads.clear()
    lines.append(NOT_REWOUND)
    warning = recorder.take_warning() if recorder is not None else None
    if warning:
        lines.append(warning)
    return "\n".join(lines)
