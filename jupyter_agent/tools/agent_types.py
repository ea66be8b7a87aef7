"""The kinds of sub-agent a Task can start, one Task call as the session's sub-agent runner gets it, and the
session's finished sub-agents (kept so a later Task call can `resume` one by its id)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Literal, Protocol

from ..base.result import ToolResult


@dataclass(frozen=True, kw_only=True)
class AgentType:
    """A kind of sub-agent: which tools it gets, what it is told, which model runs it."""

    name: str
    description: str
    #: The tools it gets, by name (`Read`, `mcp__github`, globs); None: the parent's tools.
    tools: tuple[str, ...] | None = None
    #: Only read-only tools (Explore).
    read_only: bool = False
    #: Its own system prompt (a custom agent's body), before the sub-agent's standing lines.
    prompt: str = ""
    #: What its report must hold ('': the default for what its tools can do, `prompt.REPORT_READ_ONLY` /
    #: `REPORT_WORKER`).
    report: str = ""
    #: The model that runs it; None: the parent's.
    model: str | None = None
    #: Where it was defined: "built-in" (in code), or the file.
    source: str = "built-in"


#: The `source` of a sub-agent type defined in code, not in a file.
BUILTIN_SOURCE = "built-in"


BUILTIN_AGENT_TYPES: tuple[AgentType, ...] = (
    AgentType(
        name="Explore", description="read-only tools, for finding and understanding things", read_only=True
    ),
    AgentType(name="general-purpose", description="your tools and permissions, for work that changes things"),
    AgentType(
        name="Plan",
        description="read-only tools; investigates and returns a step-by-step plan, changing nothing",
        read_only=True,
        report=(
            "Your report is a plan for the agent that called you, who carries it out: numbered, concrete steps "
            "(what to change, in which file or cell, in what order, and how to check each), then the risks and "
            "the open questions. Change nothing yourself."
        ),
    ),
)

#: The model families a Task call may name (`model`); each runs the newest model of that family.
ModelFamily = Literal["sonnet", "opus", "haiku"]


@dataclass(frozen=True, kw_only=True)
class SubagentCall:
    """One Task call: its tool_use id (the parent card of the sub-agent's calls), what it is for, the sub-agent's
    whole task, and which kind of sub-agent runs it."""

    call_id: str
    description: str
    prompt: str
    agent_type: AgentType
    #: The model family the call asked for; None: the agent type's model, else the parent's.
    model: ModelFamily | None = None
    #: At most this many turns (never more than the parent's `max_turns`); None: the parent's.
    max_turns: int | None = None
    #: The id of a finished sub-agent whose conversation this call continues; None: a new one.
    resume: str | None = None
    #: Run it in the background: the call returns its agent_id at once (TaskOutput reads the report).
    background: bool = False


@dataclass(kw_only=True)
class KeptAgent:
    """A finished sub-agent: its type and its conversation (the agent layer's `Conversation`; this layer only
    keeps it)."""

    agent_type: AgentType
    conversation: object
    model: str


@dataclass(frozen=True, kw_only=True)
class BackgroundAgent:
    """A sub-agent started with `run_in_background`: what it is for, and the task whose result is its report."""

    description: str
    task: asyncio.Task[ToolResult]


@dataclass(kw_only=True)
class KeptAgents:
    """The session's sub-agents by id (`agent_1`, `agent_2`, … in order): the finished ones, for `resume`, and
    the background ones, for TaskOutput and TaskStop."""

    agents: dict[str, KeptAgent] = field(default_factory=dict[str, KeptAgent])
    background: dict[str, BackgroundAgent] = field(default_factory=dict[str, BackgroundAgent])
    count: int = 0

    def new_id(self) -> str:
        self.count += 1
        return f"agent_{self.count}"


class SubagentRunner(Protocol):
    """Runs a Task's sub-agent (the running session's `Subagents`, bound to the run whose scope holds it, so
    it knows the run's context itself); its final report is the result."""

    async def run(self, call: SubagentCall) -> ToolResult: ...
