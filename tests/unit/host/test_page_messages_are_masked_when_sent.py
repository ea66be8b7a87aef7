"""What the kernel sends the notebook page — the review marks (`host/review_page.py`: each cell's source before and
after the run) and the approvals drawn at their cells (`host/pending_page.py`) — is masked as it is sent, with the
secrets known then: a token the user exports after the run that read it is not shown in clear by a later message."""

from __future__ import annotations

from collections.abc import Coroutine
from concurrent.futures import Future
from typing import Any

import pytest
from page_kit import Page

from jupyter_agent.base.journal import CellChange, RunJournal
from jupyter_agent.host.pending_page import PendingAtCells
from jupyter_agent.host.review_page import ReviewPages
from jupyter_agent.permissions.policy import Rule
from jupyter_agent.tools.context import ToolContext
from jupyter_agent.tools.core import PendingCell, Preview
from jupyter_agent.tools.dispatch import ApprovalRequest

NOTEBOOK = "/home/me/work/analysis.ipynb"
#: What the agent's code read from a file and wrote into a cell before the user exported it as NEW_TOKEN.
VALUE = "nt-7f3a9c2e5b8d1046aa"


def _journal() -> RunJournal:
    """A run that replaced cell c1's `x = 1` with a line holding the value, in the live page."""
    journal = RunJournal(run_id=1)
    journal.record(
        CellChange(
            notebook=NOTEBOOK,
            op="replace",
            cell_id="c1",
            inverse={"ops": [{"op": "replace", "id": "c1", "source": "x = 1", "expect": "x"}], "live": True},
            after_source=f"token = '{VALUE}'",
            tool="NotebookEdit",
        )
    )
    return journal


def _no_submit(work: Coroutine[Any, Any, Any]) -> Future[Any]:
    work.close()
    raise AssertionError("no action is taken here")


def _no_ctx() -> ToolContext:
    raise AssertionError("sending the marks needs no tool context")


def test_review_marks_sent_after_the_value_became_a_secret_show_it_masked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    journal = _journal()
    pages = ReviewPages(
        history=lambda: [journal],
        ctx=_no_ctx,
        submit=_no_submit,
    )
    page = Page()
    pages.pages[page] = "work/analysis.ipynb"
    pages.publish()
    assert VALUE in repr(page.sent)  # not a secret yet: shown as it is
    monkeypatch.setenv("NEW_TOKEN", VALUE)
    pages.publish()
    latest = page.sent[-1]
    assert latest["type"] == "review"
    assert latest["cells"][0]["after"] == "token = '[redacted: NEW_TOKEN]'"
    assert latest["cells"][0]["before"] == "x = 1"
    assert VALUE not in repr(page.sent[1:])


def test_an_approval_drawn_for_a_page_that_opens_after_the_export_shows_it_masked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, later = Page(), Page()
    pages: dict[Any, str] = {first: "work/analysis.ipynb"}
    at_cells = PendingAtCells(pages)
    cell = PendingCell(
        notebook=NOTEBOOK, change="replace", cell_id="c1", before=f"t = '{VALUE}'", after="t = ''"
    )
    asked = ApprovalRequest(
        tool_use_id="toolu_1",
        tool="NotebookEdit",
        title="NotebookEdit analysis.ipynb replace c1",
        input={},
        preview=Preview(kind="diff", text="", cells=(cell,)),
        reason="default mode asks before edit tools",
        suggested_rule=Rule("NotebookEdit"),
        kind="edit",
    )
    assert at_cells.offer(asked, lambda _answer: None) is not None
    assert VALUE in repr(first.sent)
    monkeypatch.setenv("NEW_TOKEN", VALUE)
    pages[later] = "work/analysis.ipynb"
    at_cells.opened(later, "work/analysis.ipynb")
    (drawn,) = later.sent
    assert drawn["cells"][0]["before"] == "t = '[redacted: NEW_TOKEN]'"
    assert VALUE not in repr(later.sent)
