"""TaskOutput and TaskStop: the report of a sub-agent started with `run_in_background`, and stopping it.

The background sub-agents are the session's (`ToolServices.subagents.background`), so a later run reads what
an earlier one started. TaskOutput waits for the end (up to `timeout`) unless `block` is false; a report stays
readable until the sub-agent is resumed.
"""

from __future__ import annotations

import asyncio

from pydantic import Field

from ...base.result import ToolResult
from ...tools.agent_types import BackgroundAgent
from ...tools.context import ToolContext
from ...tools.core import Tool, ToolAnnotations, ToolInput

#: Reading or stopping a sub-agent this session started changes nothing else: neither asks.
_OWN_AGENTS = ToolAnnotations(read_only=True, destructive=False)
#: Seconds a stopped sub-agent gets to answer its calls as interrupted.
_STOP_SECONDS = 10.0


class TaskOutputInput(ToolInput):
    task_id: str
    """The agent_id Task returned for a background sub-agent, e.g. "agent_1"."""
    block: bool = True
    """Wait for it to finish (up to timeout); false: answer at once, with its report or that it is running."""
    timeout: int = Field(default=30_000, ge=0, le=600_000)
    """Milliseconds to wait when block is true (at most 600000)."""


class TaskStopInput(ToolInput):
    task_id: str
    """The agent_id of the background sub-agent to stop, e.g. "agent_1"."""


def _agent(ctx: ToolContext, tool: str, task_id: str) -> BackgroundAgent | ToolResult:
    agents = ctx.services.subagents.background
    found = agents.get(task_id)
    if found is not None:
        return found
    known = ", ".join(agents) or "none"
    return ToolResult.error(
        "INVALID_ARGS",
        f"{tool}: no background sub-agent '{task_id}' (background sub-agents: {known}); use the agent_id a "
        "Task with run_in_background returned",
    )


def _still_running(task_id: str, agent: BackgroundAgent) -> ToolResult:
    return ToolResult.ok(
        f"Sub-agent {task_id} ('{agent.description}') is still running; call TaskOutput again later.",
        summary=f"{task_id} running",
        data={"status": "running"},
    )


def _report(agent: BackgroundAgent) -> ToolResult:
    if agent.task.cancelled():
        return ToolResult.error("INTERRUPTED", f"the sub-agent for '{agent.description}' was stopped")
    return agent.task.result()


class TaskOutput(Tool[TaskOutputInput]):
    name = "TaskOutput"
    description = (
        "Read the report of a sub-agent started with Task run_in_background, by its agent_id. It waits for the "
        "sub-agent to finish (up to timeout milliseconds) unless block is false; a sub-agent still running "
        "is said so, and you can call again later."
    )
    kind = "read"
    annotations = _OWN_AGENTS
    Input = TaskOutputInput

    async def run(self, params: TaskOutputInput, ctx: ToolContext) -> ToolResult:
        agent = _agent(ctx, self.name, params.task_id)
        if isinstance(agent, ToolResult):
            return agent
        if not agent.task.done() and params.block and params.timeout:
            await asyncio.wait({agent.task}, timeout=params.timeout / 1000)  # never cancels the sub-agent
        return _report(agent) if agent.task.done() else _still_running(params.task_id, agent)


class TaskStop(Tool[TaskStopInput]):
    name = "TaskStop"
    description = (
        "Stop a sub-agent started with Task run_in_background, by its agent_id: its running calls are "
        "interrupted and what it reported so far is returned."
    )
    kind = "other"
    annotations = _OWN_AGENTS
    Input = TaskStopInput

    async def run(self, params: TaskStopInput, ctx: ToolContext) -> ToolResult:
        agent = _agent(ctx, self.name, params.task_id)
        if isinstance(agent, ToolResult):
            return agent
        if agent.task.done():
            return ToolResult.ok(
                f"Sub-agent {params.task_id} had finished already; TaskOutput gives its report.",
                summary=f"{params.task_id} finished",
            )
        agent.task.cancel()
        await asyncio.wait({agent.task}, timeout=_STOP_SECONDS)
        stopped = _report(agent) if agent.task.done() else None
        said = f"\n{stopped.content}" if stopped is not None else ""
        return ToolResult.ok(
            f"Stopped sub-agent {params.task_id} ('{agent.description}').{said}",
            summary=f"{params.task_id} stopped",
        )
