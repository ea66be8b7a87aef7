"""Review after a run, for the kernel: the run's footer and `%agent review` act on one journal through the worker.

Keep and Undo run on the agent's worker (an undo in a live notebook talks to the page through the bridge,
whose replies the main thread dispatches); the widget starts them and returns. Where no one can click a
widget (a terminal, nbclient), the review is text, and `%agent review keep|undo …` does the same.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import Future
from typing import Any

from ..base.journal import RunJournal
from ..tools.context import ToolContext
from ..ui.review_view import Action, ReviewRow, ReviewWidget
from ..undo import review
from ..undo.net import NetCellChange, net_changes
from ..undo.variables import NetVariableChange

Submit = Callable[[Coroutine[Any, Any, Any]], "Future[Any]"]


class RunReview:
    """One run's review: its rows, its actions, and how it is shown."""

    def __init__(
        self,
        journal: RunJournal,
        ctx: ToolContext,
        submit: Submit,
        on_change: Callable[[], None] = lambda: None,
        reveal: Callable[[str, str], None] | None = None,
    ) -> None:
        self.journal = journal
        self.ctx = ctx
        self.submit = submit
        #: Called after each action, in the caller's context (the page's marks are sent again).
        self.on_change = on_change
        #: Scrolls the pages of a notebook to a cell (`ReviewPages.reveal`); None: no page to scroll.
        self.reveal = reveal

    @property
    def changed(self) -> bool:
        return bool(net_changes(self.journal))

    def rows(self) -> list[ReviewRow]:
        sandbox = self.ctx.sandbox
        return [
            ReviewRow(
                target=change.cell_id
                if isinstance(change, NetCellChange)
                else change.key  # `kernel:name`: a variable named `all` or like a cell id is still itself
                if isinstance(change, NetVariableChange)
                else change.label(sandbox),
                text=review.said(change, sandbox),
                cell_id=change.cell_id if isinstance(change, NetCellChange) and change.live else "",
                state=change.review,
            )
            for change in net_changes(self.journal)
        ]

    def act(self, action: Action, target: str) -> Future[Sequence[review.ReviewResult]]:
        """Keep or undo `target` (`all`: every pending change) on the worker; returns at once."""
        context = contextvars.copy_context()
        future: Future[Sequence[review.ReviewResult]] = self.submit(self.apply(action, target))
        future.add_done_callback(lambda _done: context.run(self.on_change))
        return future

    async def apply(self, action: Action, target: str) -> list[review.ReviewResult]:
        changes = review.select(self.journal, target, self.ctx.sandbox)
        if action == "keep":
            return review.keep(self.journal, changes, self.ctx.sandbox)
        return await review.undo(self.journal, changes, self.ctx)

    def text(self) -> str:
        return review.review_text(self.journal, self.ctx.sandbox)

    def widget(self) -> ReviewWidget:
        run_id = self.journal.run_id
        by = f" by {self.journal.by} (outside)" if self.journal.by else ""
        title = f"Review run {run_id}{by}: Keep marks a change reviewed, Undo puts it back"
        return ReviewWidget(
            title=title, rows=self.rows, act=self.act, again=f"%agent review {run_id}", reveal=self._reveal
        )

    def _reveal(self, cell_id: str) -> None:
        change = next(
            (c for c in net_changes(self.journal) if isinstance(c, NetCellChange) and c.cell_id == cell_id),
            None,
        )
        if change is not None and self.reveal is not None:
            self.reveal(change.notebook, cell_id)
