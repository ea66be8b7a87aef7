"""Tools that steer the agent's own work with the person: TodoWrite, AskUserQuestion, ExitPlanMode."""

from __future__ import annotations

from ..core import AnyTool
from .asking import (
    POLICY_SERVICE,
    USER_SERVICE,
    Answer,
    Choice,
    PlanReview,
    PlanVerdict,
    Question,
    UserChannel,
)
from .plan import ExitPlanMode, ExitPlanModeInput
from .question import AskUserQuestion, AskUserQuestionInput
from .todo import TODOS_SERVICE, Todo, TodoList, TodoWrite, TodoWriteInput, todo_list


def workflow_tools() -> list[AnyTool]:
    return [TodoWrite(), AskUserQuestion(), ExitPlanMode()]


__all__ = [
    "POLICY_SERVICE",
    "TODOS_SERVICE",
    "USER_SERVICE",
    "Answer",
    "AskUserQuestion",
    "AskUserQuestionInput",
    "Choice",
    "ExitPlanMode",
    "ExitPlanModeInput",
    "PlanReview",
    "PlanVerdict",
    "Question",
    "Todo",
    "TodoList",
    "TodoWrite",
    "TodoWriteInput",
    "UserChannel",
    "todo_list",
    "workflow_tools",
]
