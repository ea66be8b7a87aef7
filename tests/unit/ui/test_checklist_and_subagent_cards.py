"""The run view: TodoWrite is one checklist updated in place (never a card per call); a sub-agent's calls
are folded into its Task card instead of getting cards of their own."""

from __future__ import annotations

from typing import Any

from test_run_view import Recorder

from jupyter_agent.agent import events as ev
from jupyter_agent.base.result import ToolResult
from jupyter_agent.ui.view import RunView


def _todos(*statuses: str) -> list[dict[str, str]]:
    return [
        {"content": f"Step {i}", "status": s, "activeForm": f"Doing step {i}"}
        for i, s in enumerate(statuses, 1)
    ]


def _todo_write(view: RunView, call_id: str, todos: Any, *, error: bool = False) -> None:
    view.handle(ev.ToolStarted(call_id=call_id, name="TodoWrite", input={"todos": todos}))
    view.handle(ev.ToolRunning(call_id=call_id, title="TodoWrite"))
    result = (
        ToolResult.error("INVALID_ARGS", "two items in_progress")
        if error
        else ToolResult.ok("updated", data={"todos": todos})
    )
    view.handle(
        ev.ToolFinished(
            call_id=call_id,
            name="TodoWrite",
            title="TodoWrite",
            kind="other",
            result=result,
            duration=0,
            decision=None,
        )
    )


def test_every_todowrite_updates_the_same_checklist_display() -> None:
    publisher = Recorder()
    view = RunView(publisher=publisher)
    _todo_write(view, "t1", _todos("in_progress", "pending", "pending"))
    view.handle(ev.TextDelta(text="Working on step 1."))
    _todo_write(view, "t2", _todos("completed", "in_progress", "pending"))
    _todo_write(view, "t3", _todos("completed", "completed", "in_progress"))
    checklists = [d for d, b in publisher.shown if "jp-agent-todos" in b["text/html"]]
    assert len(checklists) == 1
    assert not view.cards  # no card for any TodoWrite call
    updates = [b for d, b in publisher.updates if d == checklists[0]]
    assert len(updates) == 2
    assert updates[-1]["text/plain"] == "Todos (2/3 done)\n[x] Step 1\n[x] Step 2\n[>] Doing step 3"
    assert "line-through" in updates[-1]["text/html"]


def test_a_refused_todowrite_shows_its_error_as_a_card() -> None:
    publisher = Recorder()
    view = RunView(publisher=publisher)
    _todo_write(view, "t1", _todos("in_progress", "in_progress"), error=True)
    assert view.cards["t1"].status == "error"
    assert not [b for _, b in publisher.shown if "jp-agent-todos" in b["text/html"]]


def test_a_checklist_with_model_text_is_escaped() -> None:
    publisher = Recorder()
    view = RunView(publisher=publisher)
    todos = [{"content": "<img src=x onerror=alert(1)>", "status": "pending", "activeForm": "x"}]
    _todo_write(view, "t1", todos)
    html = publisher.shown[0][1]["text/html"]
    assert "<img" not in html and "&lt;img" in html


def test_subagent_calls_are_nested_in_the_task_card_not_cards_of_their_own() -> None:
    publisher = Recorder()
    view = RunView(publisher=publisher)
    view.handle(ev.ToolStarted(call_id="task", name="Task", input={"description": "Look"}, kind="other"))
    view.handle(
        ev.ToolStarted(
            call_id="sub1", name="Read", input={"file_path": "a.py"}, kind="read", parent_id="task"
        )
    )
    view.handle(ev.ToolRunning(call_id="sub1", title="Read a.py", parent_id="task"))
    view.handle(
        ev.ToolFinished(
            call_id="sub1",
            name="Read",
            title="Read a.py",
            kind="read",
            result=ToolResult.ok("1\tx = 1", summary="Read a.py (1 lines)"),
            duration=0.1,
            decision=None,
            parent_id="task",
        )
    )
    assert list(view.cards) == ["task"]
    card = view.cards["task"]
    assert [c.call_id for c in card.children] == ["sub1"]
    assert card.children[0].status == "done"
    last = [b for d, b in publisher.updates if d == "d1"][-1]
    assert "1 sub-agent call" in last["text/html"]
    assert "Read a.py (1 lines)" in last["text/plain"].splitlines()[1]
    assert len(publisher.shown) == 1  # only the Task card was ever shown
