"""TodoWrite: the agent's checklist for a multi-step request, replaced whole on every call, kept per session.

The list lives in the session's `ToolContext` (service `todos`), so `%agent status` and the run's live
checklist read the same object. The result carries the list in `data["todos"]` for the UI, which shows
one checklist updated in place rather than a card per call.
"""

from __future__ import annotations

from pydantic import Field

from ...base.result import Issue, ToolResult
from ...tools.context import ToolContext
from ...tools.core import READ_ONLY, Tool, ToolInput
from ...tools.todo_list import Todo, TodoList, TodoStatus

#: It changes nothing outside the agent's own notes: it never asks and runs in every mode.

DESCRIPTION = """\
Create and update the checklist for the current request, so you and the user can follow the progress of \
multi-step work.
- Use it for work of three or more steps, or when the user gives several tasks; skip it for a single \
quick task or a question.
- Every call replaces the whole list: send all items, each with its status.
- Exactly one item is in_progress while you work (at most one at any time); mark it completed as soon as it \
is done, before you start the next, and do not mark an item completed if it failed or is partial.
- content says what to do ("Run the tests"); activeForm says it while it happens ("Running the tests")."""


class TodoItem(ToolInput):
    content: str = Field(min_length=1)
    """The task, in the imperative: "Fix the loader cell"."""
    status: TodoStatus
    """pending, in_progress (at most one item) or completed."""
    activeForm: str = Field(min_length=1)
    """The task as it is being done: "Fixing the loader cell"."""


class TodoWriteInput(ToolInput):
    todos: list[TodoItem]
    """The whole updated list (an empty list clears it)."""


def todo_list(ctx: ToolContext) -> TodoList:
    """The session's list."""
    return ctx.services.todos


class TodoWrite(Tool[TodoWriteInput]):
    name = "TodoWrite"
    description = DESCRIPTION
    kind = "other"
    annotations = READ_ONLY
    Input = TodoWriteInput

    def title(self, params: TodoWriteInput, ctx: ToolContext) -> str:
        return self.name

    async def run(self, params: TodoWriteInput, ctx: ToolContext) -> ToolResult:
        active = [i for i, item in enumerate(params.todos) if item.status == "in_progress"]
        if len(active) > 1:
            issues = tuple(
                Issue(path=f"/todos/{i}/status", message="a second item in_progress", expected="pending")
                for i in active[1:]
            )
            numbers = ", ".join(str(i) for i in active)
            return ToolResult.error(
                "INVALID_ARGS",
                f"items {numbers} are all in_progress; at most one item may be in_progress. Keep the one you "
                "are working on and set the others to pending (or completed if they are done)",
                issues=issues,
            )
        todos = [Todo(content=t.content, status=t.status, active_form=t.activeForm) for t in params.todos]
        board = todo_list(ctx)
        board.replace(todos)
        return ToolResult.ok(
            "The todo list was updated. Keep it current as you work: mark each item completed as soon as it is "
            "done and set the next one in_progress.",
            summary=f"todos: {board.counts()}",
            data={"todos": [t.to_json() for t in todos]},
        )
