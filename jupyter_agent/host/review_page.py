"""The review marks in JupyterLab / Notebook 7: the kernel end of the `jupyter_agent.review` comm.

The same comm carries the approvals shown at their cells while a run waits for them (`pending_page.py`).

The page opens this comm (it is the only one that knows when it was loaded or reloaded) and the kernel
answers with the pending marks of every run (`review`), then sends them again whenever they change (a run
ended, a click was handled). The kernel is the source of truth; the page only shows the marks and forwards
clicks (`review_action`), which run on the agent's worker like the footer's, and answers each one with a
`review_result` (kept, undone, or refused with the reason). Only changes made in the live page are marked
(their `notebook` is the page's); a file-backed notebook's cells are reviewed in the footer.

Messages are plain JSON, each masked as it leaves (`page_comm.send_to_page`); the comm callbacks run on the
kernel's main thread and never wait there.

What a run or a click sends is what it changed: the marks of that run (all of them only when a page opens), and a
redraw of that run's live review. One review is live at a time (`_LIVE_VIEWS`); an older one is frozen into
static HTML that names `%agent review N`, so the kernel, the page and the saved notebook do not gather widgets
run after run.

Each review display's static rendering (what a saved notebook shows once the widget is gone) goes to every page
as a `static_view` whenever it changes, and again to a page that opens: the page writes it into the output, since
the kernel cannot update a display whose cell is done.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, cast

from ..base.journal import RunJournal
from ..tools.agent_types import KeptAgents
from ..tools.context import ToolContext
from ..ui.background_results import BackgroundResults, CallSoon
from ..ui.gate import show_bundle
from ..ui.review_view import ReviewWidget
from ..undo.net import NetCellChange, net_changes
from ..undo.review import ReviewResult
from .page_comm import PageComm, send_to_page
from .pending_page import PendingAtCells, same_notebook
from .review import RunReview, Submit

if TYPE_CHECKING:
    from ..notebook.frontend import KernelSignals

log = logging.getLogger(__name__)

REVIEW_TARGET = "jupyter_agent.review"
#: The empty slot at the top of a run's output that its review bar takes (no height while empty).
REVIEW_SLOT_HTML = '<div class="jp-agent-review-slot"></div>'
#: Review widgets kept live (the newest); older ones are frozen into static HTML.
_LIVE_VIEWS = 1


def review_message(journal: RunJournal, page_path: str) -> dict[str, Any]:
    """The pending marks of one run for the page showing `page_path` (server-relative)."""
    cells = [
        {
            "id": change.cell_id,
            "kind": change.kind,
            "before": change.before_source,
            "after": change.after_source,
            "cell_type": change.cell_type,
            "index": change.index_before,
        }
        for change in net_changes(journal)
        if isinstance(change, NetCellChange)
        and change.live
        and change.review == "pending"
        and same_notebook(change.notebook, page_path)
    ]
    return {"type": "review", "run_id": journal.run_id, "cells": cells}


def static_message(model_id: str, bundle: Mapping[str, str], live: bool) -> dict[str, Any]:
    """A review display's static rendering for the page (`ReviewWidget.static_bundle`); masked as it is sent."""
    return {"type": "static_view", "model_id": model_id, "data": dict(bundle), "live": live}


class ReviewPages:
    """Every page that opened the review comm; see the module docstring."""

    def __init__(
        self,
        *,
        history: Callable[[], Sequence[RunJournal]],
        ctx: Callable[[], ToolContext],
        submit: Submit,
        kernel: object = None,
    ) -> None:
        self.history = history
        self.ctx = ctx
        self.submit = submit
        self.pages: dict[PageComm, str] = {}
        #: Approvals shown at their cells in these pages while the run waits for them.
        self.at_cells = PendingAtCells(self.pages)
        #: The live footers and `%agent review` widgets, newest last, with their run: redrawn when it changes.
        self.views: list[tuple[int, ReviewWidget]] = []
        #: Reviews frozen into static HTML, by run: refreshed (one display update each) when that run changes.
        self.frozen: dict[int, list[ReviewWidget]] = {}
        self._manager: Any = None
        self.kernel = kernel
        self._reviewed_upto = 0
        #: The display slot at the top of the running cell's output (`before_run`).
        self._slot: str | None = None
        if kernel is not None:
            self.register()

    def review_of(self, journal: RunJournal) -> RunReview:
        """One run's review; every action on it sends that run's marks again and redraws its views."""
        return RunReview(
            journal, self.ctx(), self.submit, on_change=lambda: self.publish([journal]), reveal=self.reveal
        )

    def reveal(self, notebook: str, cell_id: str) -> None:
        """Scroll the pages showing `notebook` to the cell and select it (a review row's "Show in notebook")."""
        self.at_cells.send({"type": "reveal_cell", "cell_id": cell_id}, {notebook})

    def before_run(self, signals: KernelSignals) -> None:
        """Keep the top of the run's output for its review bar: an empty display slot, filled by `after_run` when
        the run changed something (a long answer never pushes the review off screen)."""
        from ..ui.presenter import no_one_can_answer

        self._slot = None
        if self.kernel is not None and no_one_can_answer(self.kernel, signals) is None:
            self._slot = show_bundle({"text/plain": "", "text/html": REVIEW_SLOT_HTML})

    def after_run(self, signals: KernelSignals) -> None:
        """A run ended: the pages get its marks; its footer gets the rows where a widget can be clicked. (No
        new journal: the run never started, and there is nothing to review.)"""
        from ..ui.presenter import no_one_can_answer

        history = self.history()
        if self.kernel is None or not history or history[-1].run_id <= self._reviewed_upto:
            return
        journal = history[-1]
        self._reviewed_upto = journal.run_id
        self.publish([journal])
        review = self.review_of(journal)
        if review.changed and no_one_can_answer(self.kernel, signals) is None:
            self.show(review, into=self._slot)
        self._slot = None

    def register(self) -> None:
        """Serve the target (once `%load_ext` ran; a page that opened it earlier retries on its next hello)."""
        try:
            import comm

            self._manager = comm.get_comm_manager()
            self._manager.register_target(REVIEW_TARGET, self._opened)
        except Exception:  # no comm manager (a terminal): no page either
            log.info("jupyter_agent: the review comm target is not available", exc_info=True)
            self._manager = None

    def unregister(self) -> None:
        if self._manager is not None:
            self._manager.unregister_target(REVIEW_TARGET, self._opened)
            self._manager = None

    def show(self, review: RunReview, *, into: str | None = None) -> None:
        """Show the run's review widget (`into`: in that display slot); the one it takes the place of becomes
        static HTML."""
        widget = review.widget()
        run_id = review.journal.run_id
        views = [*self.views, (run_id, widget)]
        older, self.views = views[:-_LIVE_VIEWS], views[-_LIVE_VIEWS:]
        widget.on_static = self._send_static
        widget.show(into=into)
        for old_run, old in older:
            old.freeze()
            self.frozen.setdefault(old_run, []).append(old)

    def publish(self, journals: Sequence[RunJournal] | None = None) -> None:
        """Send the marks of `journals` (None: every run) to every page and redraw their reviews (after a run,
        after a click, after `%agent undo`)."""
        changed = list(self.history()) if journals is None else list(journals)
        for page, path in list(self.pages.items()):
            self._send_marks(page, path, changed)
        runs = {journal.run_id for journal in changed}
        for run_id, view in self.views:
            if run_id in runs:
                view.redraw()
        for run_id in runs:
            for view in self.frozen.get(run_id, []):
                view.refresh()

    def background(self, kept: KeptAgents, call_soon: CallSoon) -> BackgroundResults:
        """What follows a run's background Tasks; their cards' ended renderings reach the pages as static views."""
        return BackgroundResults(kept, call_soon, send_static=self._send_static)

    def _send_static(self, model_id: str, bundle: dict[str, str], live: bool) -> None:
        for page in list(self.pages):
            send_to_page(page, static_message(model_id, bundle, live))

    def _opened(self, page: PageComm, msg: Mapping[str, Any]) -> None:
        data = _data(msg)
        path = str(data.get("path", ""))
        self.pages[page] = path
        page.on_msg(lambda message: self._on_msg(page, message))
        page.on_close(lambda _message: self._closed(page))
        self._send_marks(page, path, self.history())
        for _run, view in self.views:
            send_to_page(page, static_message(view.model_id, view.static_bundle(), True))
        self.at_cells.opened(page, path)

    def _closed(self, page: PageComm) -> None:
        self.pages.pop(page, None)

    def _send_marks(self, page: PageComm, path: str, journals: Sequence[RunJournal]) -> None:
        for journal in journals:
            message = review_message(journal, path)
            if message["cells"] or any(isinstance(c, NetCellChange) and c.live for c in net_changes(journal)):
                send_to_page(page, message)  # an empty list clears what the page shows for that run

    def _on_msg(self, page: PageComm, msg: Mapping[str, Any]) -> None:
        data = _data(msg)
        if self.at_cells.on_msg(data) or data.get("type") != "review_action":
            return
        request_id, run_id = str(data.get("request_id", "")), data.get("run_id")
        action, cell_id = data.get("action"), str(data.get("cell_id") or "")
        journal = next((j for j in self.history() if j.run_id == run_id), None)
        answer = {"type": "review_result", "request_id": request_id, "run_id": run_id, "cell_id": cell_id}
        if journal is None or action not in ("keep", "undo") or not cell_id:
            send_to_page(
                page, {**answer, "outcome": "refused", "reason": f"no mark {cell_id!r} of run {run_id!r}"}
            )
            return
        context = contextvars.copy_context()
        future = self.review_of(journal).act("keep" if action == "keep" else "undo", cell_id)
        future.add_done_callback(lambda done: context.run(self._answer, page, answer, done))

    def _answer(self, page: PageComm, answer: dict[str, Any], done: Future[Sequence[ReviewResult]]) -> None:
        try:
            results = list(done.result())
        except Exception as exc:
            results = [ReviewResult(key="", outcome="refused", text=f"{type(exc).__name__}: {exc}")]
        first = results[0] if results else ReviewResult(key="", outcome="refused", text="nothing to do")
        reason = (
            first.text.split(": ", 1)[1] if first.outcome == "refused" and ": " in first.text else first.text
        )
        send_to_page(
            page, {**answer, "outcome": first.outcome, "reason": reason if first.outcome == "refused" else ""}
        )


def _data(msg: Mapping[str, Any]) -> Mapping[str, Any]:
    content = cast(Mapping[str, Any], msg.get("content") or {})
    return cast(Mapping[str, Any], content.get("data") or {})
