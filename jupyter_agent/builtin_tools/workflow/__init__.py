"""Tools that steer the agent's own work: TodoWrite, AskUserQuestion, EnterPlanMode, ExitPlanMode, and Task
(sub-agents) with TaskOutput and TaskStop."""

from __future__ import annotations

from ...tools.agent_types import BUILTIN_AGENT_TYPES, AgentType
from ...tools.core import AnyTool
from ...tools.todo_list import Todo, TodoList
from .asking import (
    Answer,
    Answers,
    Choice,
    ChoiceQuestion,
    PlanApproval,
    PlanReview,
    PlanVerdict,
    UserQuestions,
)
from .plan import EnterPlanMode, EnterPlanModeInput, ExitPlanMode, ExitPlanModeInput
from .question import AskUserQuestion, AskUserQuestionInput
from .task import SubagentType, TaskInput, TaskTool
from .task_output import TaskOutput, TaskOutputInput, TaskStop, TaskStopInput
from .todo import TodoWrite, TodoWriteInput, todo_list


def workflow_tools() -> list[AnyTool]:
    return [
        TodoWrite(),
        AskUserQuestion(),
        EnterPlanMode(),
        ExitPlanMode(),
        TaskTool(),
        TaskOutput(),
        TaskStop(),
    ]


__all__ = [
    "BUILTIN_AGENT_TYPES",
    "AgentType",
    "Answer",
    "Answers",
    "AskUserQuestion",
    "AskUserQuestionInput",
    "Choice",
    "ChoiceQuestion",
    "EnterPlanMode",
    "EnterPlanModeInput",
    "ExitPlanMode",
    "ExitPlanModeInput",
    "PlanApproval",
    "PlanReview",
    "PlanVerdict",
    "SubagentType",
    "TaskInput",
    "TaskOutput",
    "TaskOutputInput",
    "TaskStop",
    "TaskStopInput",
    "TaskTool",
    "Todo",
    "TodoList",
    "TodoWrite",
    "TodoWriteInput",
    "UserQuestions",
    "todo_list",
    "workflow_tools",
]
