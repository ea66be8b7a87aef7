"""Approvals shown at their cells in JupyterLab / Notebook 7: the kernel end, over the `jupyter_agent.review` comm.

While a NotebookEdit or a RunCell on the live notebook waits for approval, every page showing that notebook gets
a `pending` message (what would change, per cell); it draws the diff at the cell with Allow / Deny (and "Allow
all edits in this run" for an edit). A click comes back as `pending_answer`, and answers the same question as the
widget in the `%%agent` output; an edit the user makes to one of the cells meanwhile comes back as `pending_stale`
and refuses the call with STALE_READ. When the question is answered anywhere, the pages get `pending_done`.

Everything runs on the kernel's main thread: the offer and the close on the UI loop's tick, the page's messages
through the shell pump while the cell runs. Every message is masked as it leaves the kernel (`page_comm.py`); the page
builds its markup with textContent only. Nothing of it is saved in the notebook: the page keeps it in its DOM.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from ..tools.dispatch import Approval, ApprovalRequest, Approve, Reject
from ..ui.approval import question_in_words
from ..ui.at_cell import Outcome
from .page_comm import PageComm, send_to_page

#: What a click at the cell answers.
_ANSWERS: dict[str, Callable[[], Approval]] = {
    "allow": Approve,
    "allow_edits": lambda: Approve(edits_this_run=True),
    "deny": Reject,
}


def same_notebook(kernel_path: str, page_path: str) -> bool:
    """The kernel knows the notebook's real path, the page its server-relative one."""
    whole, tail = PurePosixPath(kernel_path).as_posix(), PurePosixPath(page_path).as_posix().lstrip("/")
    return bool(tail) and (whole == tail or whole.endswith("/" + tail))


def stale_message(request: ApprovalRequest, cell_id: str) -> str:
    """Why the call did not happen, for the model: the user edited the cell it was about while it waited."""
    what = "run" if request.kind == "execute" else "changed"
    return (
        f"cell '{cell_id}' changed while this call waited for approval (the user edited it), so nothing was "
        f"{what}; call NotebookRead with cell_id='{cell_id}' and redo the call on its current source if it "
        "is still wanted"
    )


@dataclass(eq=False)
class PendingQuestion:
    """One approval shown at its cells (`ui.at_cell.CellQuestion`)."""

    pending_id: str
    request: ApprovalRequest
    answer: Callable[[Approval], None]
    owner: PendingAtCells
    closed: bool = False
    notebooks: set[str] = field(default_factory=set[str])

    def message(self) -> dict[str, Any]:
        cells = [
            {
                "cell_id": cell.cell_id,
                "change": cell.change,
                "before": cell.before,
                "after": cell.after,
                "cell_type": cell.cell_type,
                "after_id": cell.after_id,
                "clears_outputs": cell.clears_outputs,
            }
            for cell in self.request.preview.cells
        ]
        return {
            "type": "pending",
            "pending_id": self.pending_id,
            "title": question_in_words(
                self.request
            ),  # "Edit cell 3 ('# clean') of a.ipynb?", not the log line
            "allow_edits": self.request.kind == "edit",
            "cells": cells,
        }

    def cell_ids(self) -> set[str]:
        return {cell.cell_id for cell in self.request.preview.cells if cell.cell_id}

    def reveal(self) -> None:
        self.owner.send({"type": "reveal", "pending_id": self.pending_id}, self.notebooks)

    def close(self, outcome: Outcome, text: str) -> None:
        if self.closed:
            return
        self.closed = True
        self.owner.questions.pop(self.pending_id, None)
        done = {"type": "pending_done", "pending_id": self.pending_id, "outcome": outcome, "text": text}
        self.owner.send(done, self.notebooks)


class PendingAtCells:
    """Every approval being shown at its cells, and the pages that show them (`ui.at_cell.CellPages`)."""

    def __init__(self, pages: Mapping[PageComm, str]) -> None:
        #: The pages that opened the review comm, with the notebook each shows (kept by `ReviewPages`).
        self.pages = pages
        self.questions: dict[str, PendingQuestion] = {}

    def offer(self, request: ApprovalRequest, answer: Callable[[Approval], None]) -> PendingQuestion | None:
        if not request.preview.cells:
            return None
        question = PendingQuestion(
            pending_id=uuid.uuid4().hex,
            request=request,
            answer=answer,
            owner=self,
            notebooks={cell.notebook for cell in request.preview.cells},
        )
        self.questions[question.pending_id] = question
        self.send(question.message(), question.notebooks)
        return question

    def send(self, message: dict[str, Any], notebooks: set[str]) -> None:
        for page, path in list(self.pages.items()):
            if any(same_notebook(notebook, path) for notebook in notebooks):
                send_to_page(page, message)

    def opened(self, page: PageComm, path: str) -> None:
        """A page (re)loaded while questions wait: it draws them too."""
        for question in list(self.questions.values()):
            if any(same_notebook(notebook, path) for notebook in question.notebooks):
                send_to_page(page, question.message())

    def on_msg(self, data: Mapping[str, Any]) -> bool:
        """Handle a page's click or a stale cell; False when the message is not about pending questions."""
        kind = data.get("type")
        if kind not in ("pending_answer", "pending_stale"):
            return False
        question = self.questions.get(str(data.get("pending_id", "")))
        if question is None or question.closed:
            return True  # answered already (the other place was quicker): nothing to do
        if kind == "pending_answer":
            choice = _ANSWERS.get(str(data.get("answer", "")))
            allowed_here = data.get("answer") != "allow_edits" or question.request.kind == "edit"
            if choice is not None and allowed_here:
                question.answer(choice())
            return True
        cell_id = str(data.get("cell_id", ""))
        if cell_id in question.cell_ids():
            question.answer(Reject(code="STALE_READ", message=stale_message(question.request, cell_id)))
        return True
