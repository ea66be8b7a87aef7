"""An approval shown at its cell, in a real kernel: while the `%%agent` cell runs, the page that opened the review
comm gets the pending edit; its click, or a keystroke in the cell, is handled through the shell pump and answers
the same question as the widget; and whichever answers, the page is told the question is done.

The page is a jupyter_client stand-in (`NotebookPage` for the bridge, a comm opened here for the review); the
labextension that draws it is exercised by tests/e2e/test_review_at_the_cell.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from frontend import AgentKernel, KernelFrontend, new_id, tool_results
from notebook_page import NotebookPage

from jupyter_agent.notebook.cells import new_cell_json
from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel

SCRIPT = [
    Turn(blocks=[ToolUse(name="NotebookRead", input={"cell_id": "c1"})]),
    Turn(blocks=[ToolUse(name="NotebookEdit", input={"cell_id": "c1", "new_source": "x = 2"})]),
    Turn(blocks=[Text("done")]),
]


def open_review(frontend: KernelFrontend) -> tuple[str, list[dict[str, Any]]]:
    """What the page does on load: open `jupyter_agent.review` with its notebook's path; returns what it receives."""
    comm_id, received = new_id(), []
    frontend.comm_handlers[comm_id] = received.append
    content = {"comm_id": comm_id, "target_name": "jupyter_agent.review", "data": {"path": "analysis.ipynb"}}
    frontend.kc.shell_channel.send(frontend.kc.session.msg("comm_open", content))
    return comm_id, received


def start(agent_kernel: AgentKernel) -> tuple[KernelFrontend, Any, NotebookPage, str, list[dict[str, Any]]]:
    frontend, server = agent_kernel(SCRIPT)
    page = NotebookPage(frontend)
    page.cells = [
        new_cell_json("code", "x = 1", cell_id="c1"),
        new_cell_json("code", "%%agent", cell_id="ask"),
    ]
    comm_id, received = open_review(frontend)
    return frontend, server, page, comm_id, received


def pending(frontend: KernelFrontend, received: list[dict[str, Any]]) -> dict[str, Any]:
    frontend.wait(
        lambda: any(m.get("type") == "pending" for m in received), 60, "the pending edit at the cell"
    )
    return next(m for m in received if m.get("type") == "pending")


def done(frontend: KernelFrontend, received: list[dict[str, Any]]) -> dict[str, Any]:
    frontend.wait(lambda: any(m.get("type") == "pending_done" for m in received), 30, "pending_done")
    return next(m for m in received if m.get("type") == "pending_done")


def test_allow_at_the_cell_answers_the_widgets_question_while_the_cell_runs(
    agent_kernel: AgentKernel,
) -> None:
    frontend, _server, page, comm_id, received = start(agent_kernel)
    execution = frontend.execute("%%agent\nchange x", cell_id="ask")
    asked = pending(frontend, received)
    assert asked["cells"] == [
        {
            "cell_id": "c1",
            "change": "replace",
            "before": "x = 1",
            "after": "x = 2",
            "cell_type": "code",
            "after_id": None,
            "clears_outputs": False,
        }
    ]
    assert asked["allow_edits"] is True
    frontend.click("Show in notebook")  # the widget has the link (it waits for the button to appear)
    frontend.wait(lambda: any(m.get("type") == "reveal" for m in received), 30, "reveal")
    frontend.send_comm(
        comm_id, {"type": "pending_answer", "pending_id": asked["pending_id"], "answer": "allow"}
    )
    frontend.wait(lambda: execution.done, 90, "the %%agent cell")
    assert page.cells[0]["source"] == "x = 2"
    assert done(frontend, received)["outcome"] == "allowed"
    assert "allowed once" in execution.text()


def test_a_keystroke_in_the_cell_refuses_the_edit_with_stale_read(agent_kernel: AgentKernel) -> None:
    frontend, server, page, comm_id, received = start(agent_kernel)
    execution = frontend.execute("%%agent\nchange x", cell_id="ask")
    asked = pending(frontend, received)
    page.cells[0]["source"] = "x = 1  # typed"  # what the page saw the user type
    frontend.send_comm(comm_id, {"type": "pending_stale", "pending_id": asked["pending_id"], "cell_id": "c1"})
    frontend.wait(lambda: execution.done, 90, "the %%agent cell")
    assert page.cells[0]["source"] == "x = 1  # typed"
    assert done(frontend, received)["outcome"] == "stale"
    (result,) = [r for request in server.requests for r in tool_results(request) if r.get("is_error")]
    assert "STALE_READ" in str(result["content"])
    assert "refused (STALE_READ)" in execution.text()


def test_the_widgets_answer_closes_the_question_at_the_cell(agent_kernel: AgentKernel) -> None:
    frontend, _server, page, _comm_id, received = start(agent_kernel)
    execution = frontend.execute("%%agent\nchange x", cell_id="ask")
    pending(frontend, received)
    frontend.click("Deny")
    frontend.wait(lambda: execution.done, 90, "the %%agent cell")
    assert done(frontend, received)["outcome"] == "denied"
    assert page.cells[0]["source"] == "x = 1"
