"""An approval shown at its cells too: the kernel end (`host/pending_page.py`) and the widget's side of it.

The pages are stand-ins that record what the kernel sends (the labextension that draws it is TypeScript; the
e2e tests click it in JupyterLab and Notebook 7). Wired the way `RunPresenter` wires them: the page answers
through the widget's own `answer`, and the widget's settle closes the question at the cells.
"""

from __future__ import annotations

import concurrent.futures
from typing import Any

from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output
from page_kit import Page

from jupyter_agent.host.page_comm import PageComm
from jupyter_agent.host.pending_page import PendingAtCells
from jupyter_agent.masking import REGISTRY
from jupyter_agent.permissions.kinds import ToolKind
from jupyter_agent.permissions.policy import Rule
from jupyter_agent.tools.core import PendingCell, Preview
from jupyter_agent.tools.dispatch import Approval, ApprovalRequest, Approve, Reject
from jupyter_agent.ui.approval import WidgetApproval
from jupyter_agent.ui.at_cell import outcome_of
from jupyter_agent.ui.channel import PendingQuestion

NOTEBOOK = "/home/me/work/analysis.ipynb"
SECRET = "sk-cell-test-0123456789abcdef"


def request(*cells: PendingCell, tool: str = "NotebookEdit", kind: ToolKind = "edit") -> ApprovalRequest:
    return ApprovalRequest(
        tool_use_id="toolu_1",
        tool=tool,
        title=f"{tool} analysis.ipynb replace c1",
        input={},
        preview=Preview(kind="diff", text="-x = 1\n+x = 2\n", cells=cells),
        reason="default mode asks before edit tools",
        suggested_rule=Rule(tool),
        kind=kind,
    )


def replace_c1(after: str = "x = 2") -> PendingCell:
    return PendingCell(notebook=NOTEBOOK, change="replace", cell_id="c1", before="x = 1", after=after)


class Asked:
    def __init__(self) -> None:
        self.answers: list[Approval] = []

    def __call__(self, answer: Approval) -> None:
        self.answers.append(answer)


def test_only_the_pages_of_that_notebook_get_it_with_secrets_masked() -> None:
    mine, other = Page(), Page()
    REGISTRY.register("CELL_TEST_KEY", SECRET)
    at_cells = PendingAtCells({mine: "work/analysis.ipynb", other: "work/other.ipynb"})
    question = at_cells.offer(request(replace_c1(after=f"key = '{SECRET}'")), Asked())
    assert question is not None
    (sent,) = mine.sent
    assert other.sent == []
    assert sent["type"] == "pending" and sent["pending_id"] == question.pending_id
    assert sent["allow_edits"] is True
    assert sent["cells"] == [
        {
            "cell_id": "c1",
            "change": "replace",
            "before": "x = 1",
            "after": "key = '[redacted: CELL_TEST_KEY]'",
            "cell_type": "code",
            "after_id": None,
            "clears_outputs": False,
        }
    ]
    assert SECRET not in repr(mine.sent)


def test_a_click_at_the_cell_answers_once_and_later_clicks_do_nothing() -> None:
    page, asked = Page(), Asked()
    at_cells = PendingAtCells({page: "work/analysis.ipynb"})
    question = at_cells.offer(request(replace_c1()), asked)
    assert question is not None
    data = {"type": "pending_answer", "pending_id": question.pending_id, "answer": "allow_edits"}
    assert at_cells.on_msg(data)
    assert asked.answers == [Approve(edits_this_run=True)]
    question.close("allowed", "✅ NotebookEdit analysis.ipynb replace c1: allowed")
    assert page.sent[-1] == {
        "type": "pending_done",
        "pending_id": question.pending_id,
        "outcome": "allowed",
        "text": "✅ NotebookEdit analysis.ipynb replace c1: allowed",
    }
    assert at_cells.on_msg({**data, "answer": "deny"})  # the question is gone: nothing happens
    assert asked.answers == [Approve(edits_this_run=True)]
    assert not at_cells.on_msg({"type": "review_action"})  # not about pending questions


def test_a_run_is_never_allowed_with_the_edits_button_and_unknown_answers_are_ignored() -> None:
    page, asked = Page(), Asked()
    at_cells = PendingAtCells({page: "analysis.ipynb"})
    run = PendingCell(notebook=NOTEBOOK, change="run", cell_id="c1", before="x = 1")
    question = at_cells.offer(request(run, tool="RunCell", kind="execute"), asked)
    assert question is not None and page.sent[0]["allow_edits"] is False
    for answer in ("allow_edits", "always", "yes"):
        at_cells.on_msg({"type": "pending_answer", "pending_id": question.pending_id, "answer": answer})
    assert asked.answers == []
    at_cells.on_msg({"type": "pending_answer", "pending_id": question.pending_id, "answer": "deny"})
    assert asked.answers == [Reject()]


def test_typing_into_the_cell_refuses_the_call_with_stale_read() -> None:
    page, asked = Page(), Asked()
    at_cells = PendingAtCells({page: "analysis.ipynb"})
    question = at_cells.offer(request(replace_c1()), asked)
    assert question is not None
    at_cells.on_msg({"type": "pending_stale", "pending_id": question.pending_id, "cell_id": "c9"})
    assert asked.answers == []  # not a cell of this question
    at_cells.on_msg({"type": "pending_stale", "pending_id": question.pending_id, "cell_id": "c1"})
    (refusal,) = asked.answers
    assert isinstance(refusal, Reject) and refusal.code == "STALE_READ"
    assert refusal.message == (
        "cell 'c1' changed while this call waited for approval (the user edited it), so nothing was changed; "
        "call NotebookRead with cell_id='c1' and redo the call on its current source if it is still wanted"
    )
    assert outcome_of(refusal) == "stale"


def test_a_page_that_opens_while_a_question_waits_draws_it_and_reveal_goes_to_the_pages() -> None:
    first, later = Page(), Page()
    pages: dict[PageComm, str] = {first: "analysis.ipynb"}
    at_cells = PendingAtCells(pages)
    question = at_cells.offer(request(replace_c1()), Asked())
    assert question is not None
    pages[later] = "analysis.ipynb"
    at_cells.opened(later, "analysis.ipynb")
    assert later.kinds() == ["pending"]
    question.reveal()
    assert first.kinds() == later.kinds() == ["pending", "reveal"]
    assert at_cells.offer(request(), Asked()) is None  # about no cell: not shown at any


def test_the_widget_offers_show_in_notebook_and_all_edits_and_closes_the_cell_when_answered(
    shell: InteractiveShell,
) -> None:
    page = Page()
    at_cells = PendingAtCells({page: "analysis.ipynb"})
    asked = request(replace_c1())
    card = WidgetApproval(ask=PendingQuestion(request=asked, reply=concurrent.futures.Future()))
    question = at_cells.offer(asked, card.answer)  # as RunPresenter wires them
    assert question is not None
    card.at_cell = question
    with capture_output():
        card.show()
    labels = [w.description for w in card.widgets if type(w).__name__ == "Button"]
    assert labels == [
        "Allow once",
        "Always allow",
        "Deny",
        "More…",  # the rest, folded
        "Always allow in this project",
        "Allow all edits in this run",
        "Show in notebook",
        "Deny with message",
    ]
    show = next(w for w in card.widgets if getattr(w, "description", "") == "Show in notebook")
    show.click()
    assert page.kinds() == ["pending", "reveal"]
    at_cells.on_msg({"type": "pending_answer", "pending_id": question.pending_id, "answer": "allow"})
    assert card.ask.reply.result() == Approve()  # the page's click answered the widget's question
    with capture_output() as captured:
        assert card.settle()
    question.close(outcome_of(card.outcome), card.record or "")
    assert captured.outputs[0].data["text/plain"] == "✅ NotebookEdit analysis.ipynb replace c1: allowed once"
    assert page.sent[-1]["type"] == "pending_done" and page.sent[-1]["outcome"] == "allowed"


def test_a_run_approval_has_no_all_edits_button(shell: InteractiveShell) -> None:
    run = PendingCell(notebook=NOTEBOOK, change="run", cell_id="c1", before="x = 1")
    card = WidgetApproval(
        ask=PendingQuestion(
            request=request(run, tool="RunCell", kind="execute"), reply=concurrent.futures.Future()
        )
    )
    with capture_output():
        card.show()
    labels = [w.description for w in card.widgets if type(w).__name__ == "Button"]
    assert "Allow all edits in this run" not in labels and "Show in notebook" not in labels


def test_the_widgets_all_edits_button_answers_for_the_rest_of_the_run(shell: InteractiveShell) -> None:
    card = WidgetApproval(
        ask=PendingQuestion(request=request(replace_c1()), reply=concurrent.futures.Future())
    )
    with capture_output():
        card.show()
    next(w for w in card.widgets if getattr(w, "description", "") == "Allow all edits in this run").click()
    assert card.ask.reply.result() == Approve(edits_this_run=True)
    with capture_output() as captured:
        assert card.settle()
    assert captured.outputs[0].data["text/plain"] == (
        "✅ NotebookEdit analysis.ipynb replace c1: allowed, with every edit for the rest of this run"
    )


def test_a_page_whose_comm_closed_meanwhile_does_not_stop_the_others() -> None:
    class Gone(Page):
        def send(self, data: dict[str, Any] | None = None) -> None:
            raise RuntimeError("Comms cannot be used after they are closed")

    gone, alive = Gone(), Page()
    at_cells = PendingAtCells({gone: "analysis.ipynb", alive: "analysis.ipynb"})
    question = at_cells.offer(request(replace_c1()), Asked())
    assert question is not None and alive.kinds() == ["pending"]
    question.close("denied", "")
    assert alive.kinds() == ["pending", "pending_done"]
