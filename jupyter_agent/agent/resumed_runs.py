"""The runs `%agent history` lists after `%agent resume`: this kernel's, then the saved session's, each number
used once.

A saved run this kernel made itself (resumed after `%agent reset`) is the same run, not a second one: its journal,
with the changes it knows, points into the resumed conversation again, so it can be rewound and its changes
undone. The saved session's other runs follow, numbered on after this kernel's when their numbers are taken
(in memory only: the file keeps its own numbers, and a later rewind record needs only the cut's position).
"""

from __future__ import annotations

from ..base.journal import RunJournal
from ..sessions.store import Request, SavedSession
from .conversation import Conversation


def resumed_history(
    history: list[RunJournal], saved: SavedSession, conversation: Conversation
) -> list[RunJournal]:
    """`history` (journals kept, some re-attached to `conversation`) followed by the saved session's other runs.
    `conversation` already holds the saved messages."""
    mine = {journal.saved_as: journal for journal in history if journal.saved_as is not None}
    fresh: list[Request] = []
    for request in saved.requests:
        same = mine.get((saved.id, request.run_id))
        if same is None:
            fresh.append(request)
        else:
            same.message_start = _start_in(request, conversation)
            same.generation = conversation.generation
            same.rewound = request.rewound
    taken = {journal.run_id for journal in history}
    shift = max(taken) if any(request.run_id in taken for request in fresh) else 0
    return [
        *history,
        *(
            RunJournal(
                run_id=request.run_id + shift,
                request=request.text,
                message_start=_start_in(request, conversation),
                generation=conversation.generation,
                rewound=request.rewound,
                changes_known=False,
                saved_as=(saved.id, request.run_id),
            )
            for request in fresh
        ),
    ]


def _start_in(request: Request, conversation: Conversation) -> tuple[int, int] | None:
    """Where the saved request began in the resumed conversation, when still known."""
    start = request.message_start
    return start if start is not None and start[0] <= len(conversation) else None
