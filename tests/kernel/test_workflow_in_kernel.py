"""TodoWrite, ExitPlanMode and AskUserQuestion in a real kernel: one live checklist, the plan approval widget
switching the mode, and a question answered by clicking an option while the cell is busy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from frontend import AgentKernel, Execution, result_text, tool_results

from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel


def _todo(*statuses: str) -> dict[str, Any]:
    return {
        "todos": [
            {"content": f"Step {i}", "status": s, "activeForm": f"Doing step {i}"}
            for i, s in enumerate(statuses, 1)
        ]
    }


def _displays(cell: Execution, marker: str) -> list[dict[str, Any]]:
    return [
        m for m in cell.outputs
        if m["msg_type"] in ("display_data", "update_display_data")
        and marker in m["content"].get("data", {}).get("text/html", "")
    ]  # fmt: skip


def test_todowrite_is_one_checklist_updated_in_place_and_listed_in_status(agent_kernel: AgentKernel) -> None:
    script = [
        Turn(blocks=[ToolUse(name="TodoWrite", input=_todo("in_progress", "pending"))]),
        Turn(
            blocks=[Text("Step 1 done."), ToolUse(name="TodoWrite", input=_todo("completed", "in_progress"))]
        ),
        Turn(blocks=[ToolUse(name="TodoWrite", input=_todo("completed", "completed"))]),
        Turn(blocks=[Text("All done.")]),
    ]
    frontend, _ = agent_kernel(script)
    cell = frontend.run("%%agent\ndo both steps", timeout=90)
    checklist = _displays(cell, "jp-agent-todos")
    assert [m["msg_type"] for m in checklist] == [
        "display_data",
        "update_display_data",
        "update_display_data",
    ]
    assert len({m["content"]["transient"]["display_id"] for m in checklist}) == 1
    assert checklist[-1]["content"]["data"]["text/plain"] == "Todos (2/2 done)\n[x] Step 1\n[x] Step 2"
    assert "TodoWrite" not in cell.text()  # no card for any of the three calls
    status = frontend.run("%agent status").text()
    assert "todos:    2/2 done\n          [x] Step 1\n          [x] Step 2" in status


PLAN = "1. Fix the loader\n2. Re-run the report"


def _plan_script() -> list[Turn]:
    return [
        Turn(blocks=[Text("Here is my plan."), ToolUse(name="ExitPlanMode", input={"plan": PLAN})]),
        Turn(blocks=[Text("Carrying it out.")]),
    ]


def test_approving_the_plan_switches_the_mode_at_once_and_for_later_runs(agent_kernel: AgentKernel) -> None:
    frontend, server = agent_kernel(_plan_script())
    frontend.run("%agent mode plan")
    cell = frontend.execute("%%agent\nplan the fix")
    frontend.click("Approve and switch to acceptEdits")
    frontend.wait(lambda: cell.done, 60, "the agent cell")
    text = result_text(tool_results(server.requests[1])[0])
    assert text.startswith("The user approved your plan. The mode is now acceptEdits")
    assert "✅ plan approved: mode acceptEdits" in cell.text()
    shown = [w.state.get("value", "") for w in frontend.widgets.values() if w.model == "HTMLModel"]
    assert any("<li>Fix the loader</li>" in value for value in shown)  # the plan, rendered from Markdown
    assert "mode:     acceptEdits" in frontend.run("%agent status").text()


def test_keep_planning_with_a_message_leaves_plan_mode(agent_kernel: AgentKernel) -> None:
    frontend, server = agent_kernel(_plan_script())
    frontend.run("%agent mode plan")
    cell = frontend.execute("%%agent\nplan the fix")
    frontend.wait(lambda: bool(frontend.buttons("Keep planning")), 60, "the plan widget")
    frontend.set_text("Message for the agent", "also handle March")
    frontend.click("Keep planning")
    frontend.wait(lambda: cell.done, 60, "the agent cell")
    text = result_text(tool_results(server.requests[1])[0])
    assert text.startswith("DENIED: the user wants to keep planning; the mode stays plan.")
    assert '"also handle March"' in text
    assert "mode:     plan" in frontend.run("%agent status").text()


def test_headless_the_plan_is_refused_with_a_hint_and_the_mode_stays_plan(agent_kernel: AgentKernel) -> None:
    frontend, server = agent_kernel(_plan_script(), headless=True)
    frontend.run("%agent mode plan")
    frontend.run("%%agent\nplan the fix", timeout=90)
    text = result_text(tool_results(server.requests[1])[0])
    assert text.startswith("DENIED: no one can approve the plan here")
    assert "%agent mode acceptEdits" in text
    assert "mode:     plan" in frontend.run("%agent status").text()


QUESTION = {
    "questions": [
        {
            "question": "Which rows should the loader drop?",
            "header": "Rows",
            "options": [
                {"label": "Empty rows", "description": "every value missing"},
                {"label": "Duplicates", "description": "exact repeats"},
            ],
            "multiSelect": False,
        }
    ]
}


def test_clicking_an_option_answers_the_question_while_the_cell_is_busy(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    script = [
        Turn(blocks=[ToolUse(name="AskUserQuestion", input=QUESTION)]),
        Turn(blocks=[Text("Dropping them.")]),
    ]
    frontend, server = agent_kernel(script)
    cell = frontend.execute("%%agent\nclean the data")
    frontend.click("Duplicates")
    frontend.wait(lambda: cell.done, 60, "the agent cell")
    assert result_text(tool_results(server.requests[1])[0]) == (
        'The user answered your questions: "Which rows should the loader drop?"="Duplicates". '
        "Continue with these answers in mind."
    )
    assert "💬 Which rows should the loader drop? → Duplicates" in cell.text()
    assert "Dropping them." in cell.text()


def test_headless_the_question_tells_the_model_to_decide(agent_kernel: AgentKernel) -> None:
    script = [Turn(blocks=[ToolUse(name="AskUserQuestion", input=QUESTION)]), Turn(blocks=[Text("Assumed.")])]
    frontend, server = agent_kernel(script, headless=True)
    frontend.run("%%agent\nclean the data", timeout=90)
    text = result_text(tool_results(server.requests[1])[0])
    assert text.startswith("No one can answer questions in this session")
