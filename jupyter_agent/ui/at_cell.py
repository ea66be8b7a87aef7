"""A tool approval that is also shown at the cells it is about, in the page (JupyterLab, Notebook 7).

The run presenter offers each approval whose preview names cells of the live notebook (`Preview.cells`) to the
pages (`CellPages`, served by the host over the review comm). Either place answers the same question — a click at
the cell calls the widget's own `answer` — and whichever answers first closes both: the widget collapses on the
UI loop's next tick, and the presenter then closes the question at the cells with the same outcome.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, Protocol

from ..tools.dispatch import Approval, ApprovalRequest, Approve

#: How a question at the cells ended, for the page to show it there.
Outcome = Literal["allowed", "denied", "stale", "interrupted"]


class CellQuestion(Protocol):
    """One approval shown at its cells."""

    def reveal(self) -> None:
        """Scroll the page to the (first) cell (the widget's "Show in notebook")."""
        ...

    def close(self, outcome: Outcome, text: str) -> None:
        """Answered (here or at the cell) or abandoned: the page takes the marks away and says how it ended."""
        ...


class CellPages(Protocol):
    """Where approvals about cells are shown besides the cell output (the pages of this kernel's notebook)."""

    def offer(self, request: ApprovalRequest, answer: Callable[[Approval], None]) -> CellQuestion | None:
        """Show `request` at its cells; a click there calls `answer`. None when it is about no cell."""
        ...


def outcome_of(answer: Approval | None) -> Outcome:
    if answer is None:
        return "interrupted"
    if isinstance(answer, Approve):
        return "allowed"
    return "stale" if answer.code == "STALE_READ" else "denied"
