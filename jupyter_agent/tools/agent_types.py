"""The kinds of sub-agent a Task can start, and one Task call as the session's sub-agent runner gets it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

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
)


@dataclass(frozen=True, kw_only=True)
class SubagentCall:
    """One Task call: its tool_use id (the parent card of the sub-agent's calls), what it is for, the sub-agent's
    whole task, and which kind of sub-agent runs it."""

    call_id: str
    description: str
    prompt: str
    agent_type: AgentType


class SubagentRunner(Protocol):
    """Runs a Task's sub-agent (the running session's `Subagents`, bound to the run whose scope holds it, so
    it knows the run's context itself); its final report is the result."""

    async def run(self, call: SubagentCall) -> ToolResult: ...
