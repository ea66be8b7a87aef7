"""Task: start a sub-agent for a self-contained piece of work; its final report is the result.

The tool only validates and hands over: the `subagents` service of the running session (agent/subagent.py)
runs the sub-agent's own conversation. A sub-agent's context has no such service, so it cannot start Tasks.

The sub-agent types are `Explore` (read-only tools), `general-purpose` (the parent's tools) and the project's
own (`.claude/agents/*.md`: a name, a description, the tools it names, a model, and its system prompt). With
custom types the tool's input lists them all (an enum in the schema, so a wrong name is refused with the
choices) and its description says what each is for; the list is fixed for the session, so the tool
definition stays byte-identical.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import Field, create_model

from ...base.result import ToolResult
from ...tools.agent_types import BUILTIN_AGENT_TYPES, AgentType, ModelFamily, SubagentCall
from ...tools.context import ToolContext
from ...tools.core import InstanceTool, ToolAnnotations, ToolInput
from ..listing import Listing, capped

SubagentType = Literal["Explore", "general-purpose", "Plan"]

DESCRIPTION = """\
Start a sub-agent for a self-contained piece of work; it works on its own with its own conversation and \
returns one final report. Use it to search or analyse broadly without filling your own context (several \
files, many matches), or to run independent investigations at the same time: several Task calls in one \
message run concurrently.
- subagent_type "Explore" (the default): read-only tools (Read, Glob, Grep, NotebookRead, …), for finding \
and understanding things. "general-purpose": your tools and permissions, for work that changes things. "Plan": read-only tools; it investigates and returns a step-by-step plan.
- Its result names its agent_id: `resume` with that id continues the same sub-agent (it keeps what it \
read and said) with a new prompt. With run_in_background it returns the agent_id at once: go on with your \
work and read its report with TaskOutput (TaskStop stops it); its calls that would ask the user are refused.
- The sub-agent sees none of this conversation: the prompt must say everything it needs (the goal, paths, \
what you know) and exactly what to report back.
- Its report is for you, not the user: summarise what matters in your answer."""


class TaskInput(ToolInput):
    description: str = Field(min_length=1)
    """A short (3–5 word) description of the task, shown to the user."""
    prompt: str = Field(min_length=1)
    """The task for the sub-agent: everything it needs to know, and what to report back."""
    subagent_type: SubagentType = "Explore"
    """Explore (read-only tools, the default), general-purpose (your tools and permissions) or Plan."""
    model: ModelFamily | None = None
    """The model family for the sub-agent (its newest model); left out: the agent type's model, else yours."""
    max_turns: int | None = Field(default=None, ge=1)
    """At most this many model turns for the sub-agent (never more than your own limit)."""
    resume: str | None = None
    """The agent_id a finished sub-agent's result names: it goes on in its own conversation with this prompt."""
    run_in_background: bool = False
    """Start it and return its agent_id at once; read its report later with TaskOutput."""


def _input_with(types: Sequence[AgentType]) -> type[TaskInput]:
    """TaskInput whose `subagent_type` is one of `types` (an enum the model sees)."""
    names = tuple(t.name for t in types)
    field = Field(
        default="Explore",
        description="Which sub-agent: Explore (the default), general-purpose, Plan, or one of the project's "
        "agents.",
    )
    choice: Any = Literal[names]  # pyright: ignore[reportInvalidTypeForm]
    return create_model("TaskInput", __base__=TaskInput, subagent_type=(choice, field))


def agent_listing(custom: Sequence[AgentType]) -> Listing[AgentType]:
    """The project's sub-agents Task offers (capped: `builtin_tools.listing`) and their lines."""
    return capped(custom, lambda t: f'- "{t.name}": {t.description}')


def _description(listing: Listing[AgentType]) -> str:
    if not listing.kept:
        return DESCRIPTION
    return (
        f"{DESCRIPTION}\nThe project's own sub-agents (use one when its description fits the task):\n"
        f"{listing.text('sub-agents')}"
    )


#: The Task tool's name (an `InstanceTool`: its name is given per instance).
TASK_TOOL_NAME = "Task"


class TaskTool(InstanceTool[TaskInput]):
    """The Task tool: the built-in sub-agent types, plus the project's (`custom`). `Agent(type)` rules (and the
    older `Task(type)`) match the sub-agent type a call starts."""

    rule_field = "subagent_type"

    def __init__(self, custom: Sequence[AgentType] = ()) -> None:
        builtin = {t.name for t in BUILTIN_AGENT_TYPES}
        listing = agent_listing([t for t in custom if t.name not in builtin])
        #: Only the sub-agents listed: one left out by the cap is not offered.
        self.custom = listing.kept
        self.types = {t.name: t for t in (*BUILTIN_AGENT_TYPES, *self.custom)}
        super().__init__(
            name=TASK_TOOL_NAME,
            description=_description(listing),
            input_model=_input_with(list(self.types.values())) if self.custom else TaskInput,
            kind="other",
            #: The call itself changes nothing; each call its sub-agent makes is checked on its own.
            annotations=ToolAnnotations(read_only=True, destructive=False, idempotent=False),
        )

    def title(self, params: TaskInput, ctx: ToolContext) -> str:
        return f"Task {params.description} ({params.subagent_type})"

    async def run(self, params: TaskInput, ctx: ToolContext) -> ToolResult:
        subagents = ctx.run.subagents
        if subagents is None:
            return ToolResult.error(
                "NOT_AVAILABLE", "sub-agents cannot be started here (a sub-agent cannot start Tasks)"
            )
        call = SubagentCall(
            call_id=ctx.tool_use_id,
            description=params.description,
            prompt=params.prompt,
            agent_type=self.types[params.subagent_type],
            model=params.model,
            max_turns=params.max_turns,
            resume=params.resume,
            background=params.run_in_background,
        )
        return await subagents.run(call)
