"""Task: start a sub-agent for a self-contained piece of work; its final report is the result.

The tool only validates and hands over: the `subagents` service of the running session (agent/subagent.py)
runs the sub-agent's own conversation. A sub-agent's context has no such service, so it cannot start Tasks.
"""

from __future__ import annotations

from typing import Literal, Protocol

from pydantic import Field

from ...base.result import ToolResult
from ..context import ToolContext
from ..core import Tool, ToolAnnotations, ToolInput

SubagentType = Literal["Explore", "general-purpose"]

DESCRIPTION = """\
Start a sub-agent for a self-contained piece of work; it works on its own with its own conversation and \
returns one final report. Use it to search or analyse broadly without filling your own context (several \
files, many matches), or to run independent investigations at the same time: several Task calls in one \
message run concurrently.
- subagent_type "Explore" (the default): read-only tools (Read, Glob, Grep, NotebookRead, …), for finding \
and understanding things. "general-purpose": your tools and permissions, for work that changes things.
- The sub-agent sees none of this conversation: the prompt must say everything it needs (the goal, paths, \
what you know) and exactly what to report back.
- Its report is for you, not the user: summarise what matters in your answer."""


class TaskInput(ToolInput):
    description: str = Field(min_length=1)
    """A short (3–5 word) description of the task, shown to the user."""
    prompt: str = Field(min_length=1)
    """The task for the sub-agent: everything it needs to know, and what to report back."""
    subagent_type: SubagentType = "Explore"
    """Explore (read-only tools, the default) or general-purpose (your tools and permissions)."""


class SubagentRunner(Protocol):
    async def run(self, call_id: str, params: TaskInput, ctx: ToolContext) -> ToolResult: ...


class TaskTool(Tool[TaskInput]):
    name = "Task"
    description = DESCRIPTION
    kind = "other"
    #: The call itself changes nothing; each call its sub-agent makes is checked on its own.
    annotations = ToolAnnotations(read_only=True, destructive=False, idempotent=False)
    Input = TaskInput

    def title(self, params: TaskInput, ctx: ToolContext) -> str:
        return f"Task {params.description} ({params.subagent_type})"

    async def run(self, params: TaskInput, ctx: ToolContext) -> ToolResult:
        subagents = ctx.services.subagents
        if subagents is None:
            return ToolResult.error(
                "NOT_AVAILABLE", "sub-agents cannot be started here (a sub-agent cannot start Tasks)"
            )
        return await subagents.run(ctx.tool_use_id, params, ctx)
