"""Task: a sub-agent with its own conversation, run through the same client and Dispatcher machinery.

A sub-agent gets a narrowed pool — `Explore` (the default): the read-only tools; `general-purpose`: the
parent's tools; a project's agent (`.claude/agents/*.md`): exactly the tools it names, its own system prompt
and model — never the tools that steer the parent's own work with the user (Task itself, TodoWrite,
AskUserQuestion, ExitPlanMode), so it cannot start Tasks. Its calls go through a Dispatcher with the
parent's policy, tool hooks and approver, so rules, modes and approvals apply to them unchanged. Its tool events
reach the UI with the Task call's id as `parent_id` (to nest them under the Task card), its usage adds up
in the parent run's tally (so the run's and the session's budgets cap it, whatever model the call named), and
its final text is the Task's result. A finished sub-agent is kept in the session (`ToolServices.subagents`) under
the agent_id its result names, so a later call can `resume` it. The Task tool itself changes nothing,
so it is read-only for the scheduler: several Task calls of one turn run concurrently.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..base.harness_texts import SUBAGENT_OPENING_NOTE
from ..base.result import ToolResult
from ..builtin_tools.workflow.plan import EnterPlanMode, ExitPlanMode
from ..builtin_tools.workflow.question import AskUserQuestion
from ..builtin_tools.workflow.task import TASK_TOOL_NAME
from ..builtin_tools.workflow.task_output import TaskOutput, TaskStop
from ..builtin_tools.workflow.todo import TodoWrite
from ..permissions.policy import Rule
from ..tools.agent_types import (
    BUILTIN_SOURCE,
    AgentType,
    BackgroundAgent,
    KeptAgent,
    SubagentCall,
)
from ..tools.core import AnyTool
from ..tools.dispatch import Approval, ApprovalRequest, Dispatcher, Reject
from ..tools.ledger import ReadLedger
from ..tools.registry import ToolPool
from .boundary import valid_for_model
from .conversation import Conversation
from .events import (
    AgentEvent,
    Notice,
    RetryWait,
    RunFinished,
    ToolFinished,
    ToolProgress,
    ToolRunning,
    ToolStarted,
    UsageUpdate,
)
from .facts import SessionFacts
from .hook_moments import last_assistant_text, subagent_start, subagent_stop
from .memory import MemoryFile
from .models import family_model
from .opening import OpeningFile, opening_messages
from .prefix import Prefix, definition_name
from .prompt import PromptFacts, system_prompt
from .updates import Surroundings

if TYPE_CHECKING:
    from .loop import AgentRun

#: Tools about the main agent's own conversation with the user; a sub-agent never gets them.
PARENT_ONLY = frozenset(
    {
        TASK_TOOL_NAME,
        TaskOutput.name,
        TaskStop.name,
        TodoWrite.name,
        AskUserQuestion.name,
        ExitPlanMode.name,
        EnterPlanMode.name,
    }
)


def subagent_tools(tools: dict[str, AnyTool], agent_type: AgentType) -> list[AnyTool]:
    """The narrowed pool: never the parent-only tools; for Explore only read-only ones; for an agent that
    names its tools, exactly those (a name, a glob, or `mcp__server` for all of a server's tools)."""
    named = [Rule(name) for name in agent_type.tools] if agent_type.tools is not None else None
    return [
        tool
        for name, tool in tools.items()
        if name not in PARENT_ONLY
        and (tool.read_only or not agent_type.read_only)
        and (named is None or any(rule.names(name) for rule in named))
    ]


class Subagents:
    """Starts sub-agents for one parent run: the run's scope holds it as the runner the Task tool calls; the
    session binds it to the run it made for that scope (`bind`)."""

    def __init__(
        self,
        *,
        facts: Callable[[], SessionFacts],
        memory: Sequence[MemoryFile] = (),
        project_files: Sequence[OpeningFile] = (),
    ) -> None:
        self._parent: AgentRun | None = None
        #: The session's facts as they are when the sub-agent asks (its first message tells them).
        self.facts = facts
        #: The user's own memory file: a sub-agent follows the user's standing instructions too.
        self.memory = memory
        #: The repository's AGENTS.md / CLAUDE.md, handed over as tool results, as to the main agent.
        self.project_files = project_files

    def bind(self, parent: AgentRun) -> None:
        self._parent = parent

    @property
    def parent(self) -> AgentRun:
        if self._parent is None:
            raise RuntimeError(
                "Subagents: no parent run is bound (the session binds it when it makes the run)"
            )
        return self._parent

    async def run(self, call: SubagentCall) -> ToolResult:
        from .loop import AgentRun

        call_id, agent_type = call.call_id, call.agent_type
        parent = self.parent
        ctx = parent.tools.ctx  # the Task call's run: the scope that holds this runner
        kept_agents = ctx.services.subagents
        kept = kept_agents.agents.get(call.resume) if call.resume else None
        if call.resume and kept is None:
            known = ", ".join(kept_agents.agents) or "none yet"
            return ToolResult.error(
                "INVALID_ARGS",
                f"Task: no finished sub-agent '{call.resume}' to resume (finished: {known}); name one of those, "
                "or leave resume out to start a new sub-agent",
            )
        agent_type = kept.agent_type if kept is not None else agent_type
        model = kept.model if kept is not None else agent_type.model or parent.config.model
        if call.model is not None:
            chosen = family_model(call.model, parent.config.model)
            if chosen is None:
                return ToolResult.error(
                    "INVALID_ARGS",
                    f"Task: model '{call.model}' cannot be chosen here: the session's model "
                    f"'{parent.config.model}' is named the endpoint's own way; leave model out",
                )
            model = chosen
        dispatcher = parent.tools.dispatcher
        pool = ToolPool()
        pool.set_source("subagent", subagent_tools(dispatcher.tools(), agent_type))
        # A child scope (what it shares with the parent run: `RunScope.child`): the rule lists as they are now,
        # a grant passed up to the parent's; a skill it loads narrows the sub-agent, not the parent.
        child = ctx.run.child()
        # A background sub-agent outlives the cell that started it: no one is at its calls to ask.
        approver = refuse_in_background if call.background else dispatcher.approver
        sub_dispatcher = Dispatcher(
            pool=pool, scope=child, hooks=dispatcher.hooks.for_subagent(), approver=approver
        )
        # Its own read ledger: what a sub-agent read does not let the parent edit a file the parent never saw.
        sub_ctx = dataclasses.replace(ctx.for_run(child), reads=ReadLedger())
        turns = min(call.max_turns or parent.config.max_turns, parent.config.max_turns)
        config = dataclasses.replace(parent.config, model=model, max_turns=turns)
        granted = sub_dispatcher.tools()
        tools = {definition_name(d): d for d in (t.to_param() for t in granted.values())}
        # A sub-agent whose tools only read is taught nothing of modes and approvals: no call of it asks.
        read_only = agent_type.read_only or all(t.read_only for t in granted.values())
        run = AgentRun(
            run_id=parent.run_id,
            conversation=(
                kept_conversation(kept)
                or self._conversation(agent_type, tools, config.extra_instructions, read_only=read_only)
            ),
            client=parent.streamer.client,
            dispatcher=sub_dispatcher,
            ctx=sub_ctx,
            config=config,
            surroundings=Surroundings(
                facts=lambda: dataclasses.replace(
                    self.facts(), tool_names=tuple(tools), mode_told=not read_only
                ),
                tools=lambda _searches: tools,
            ),
            emit=_quiet if call.background else _Relay(parent, call_id, call.description).emit,
            session_tally=parent.session_tally,
            within=parent.run_total,
            mode=child.policy.mode,
        )
        # Its own task: the sub-run absorbs a cancellation (it answers its calls as interrupted), which must
        # not cancel-proof the parent's task; the parent's cancellation is passed on below.
        if call.resume:  # taken while it runs: a second call resuming it meanwhile is told it is not there
            kept_agents.agents.pop(call.resume, None)
        agent_id = call.resume or kept_agents.new_id()
        kept_agents.background.pop(agent_id, None)  # a resumed one's earlier report is read no more

        async def outcome() -> ToolResult:
            hooks = dispatcher.hooks
            added = await subagent_start(hooks, agent_id, agent_type.name)
            request, active = (f"{call.prompt}\n\n{added}" if added else call.prompt), False
            while True:
                finished = await run.run(request)
                report = last_assistant_text(run.conversation)
                if finished.reason != "end_turn":
                    break
                why = await subagent_stop(
                    hooks,
                    agent_id=agent_id,
                    agent_type=agent_type.name,
                    transcript="",  # a sub-agent's conversation is saved with the session's, not apart
                    last_message=report,
                    active=active,
                )
                if not why or active:  # a SubagentStop hook sends it back once, as a Stop hook does
                    break
                active, request = True, f"[A SubagentStop hook asks you to continue: {why}]"
            kept_agents.agents[agent_id] = KeptAgent(
                agent_type=agent_type, conversation=run.conversation, model=model
            )
            return _outcome(call.description, report, finished, agent_id)

        task = asyncio.create_task(outcome())
        if call.background:
            kept_agents.background[agent_id] = BackgroundAgent(description=call.description, task=task)
            return ToolResult.ok(
                f"Started sub-agent {agent_id} in the background for '{call.description}'. "
                f'TaskOutput(task_id="{agent_id}") gives its report (it waits for the end); '
                f'TaskStop(task_id="{agent_id}") stops it. Its calls that would ask the user are refused.',
                summary=f"{call.description}: in the background as {agent_id}",
                data={"agent_id": agent_id, "background": True},
            )
        result = await task
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise asyncio.CancelledError
        return result

    def _conversation(
        self,
        agent_type: AgentType,
        tools: dict[str, dict[str, object]],
        instructions: str,
        *,
        read_only: bool,
    ) -> Conversation:
        """The sub-agent's own conversation: its fixed prefix, and as tool results the repository's files — its
        own definition (`.claude/agents/*.md`) first, for a project's agent (a type registered in code keeps its
        instructions in the system prompt)."""
        conversation = Conversation()
        from_file = agent_type.source != BUILTIN_SOURCE
        system = system_prompt(
            PromptFacts(
                subagent=True,
                read_only=read_only,
                report=agent_type.report,
                extra_instructions=instructions,
                memory=self.memory,
                role="" if from_file else agent_type.prompt,
            )
        )
        conversation.fix_prefix(
            Prefix(system=valid_for_model(system), tools=tuple(valid_for_model(list(tools.values()))))
        )
        files = list(self.project_files)
        if from_file and agent_type.prompt.strip():
            files.insert(0, OpeningFile(path=agent_type.source, text=agent_type.prompt.strip()))
        conversation.add_messages(
            opening_messages(files, skill_listing=None, tools=list(tools), note=SUBAGENT_OPENING_NOTE)
        )
        return conversation


def _outcome(description: str, report: str, finished: RunFinished, agent_id: str) -> ToolResult:
    """A sub-agent's result: its report and its agent_id, or why it stopped before it finished."""
    named = f'\n\nagent_id: {agent_id} (Task with resume="{agent_id}" continues this sub-agent)'
    if finished.reason == "end_turn" and report:
        return ToolResult.ok(
            report + named, summary=f"{description}: {finished.turns} turn(s)", data={"agent_id": agent_id}
        )
    why = {"error": "failed", "max_turns": "reached max_turns", "budget": "reached the budget"}.get(
        finished.reason, finished.reason
    )
    partial = f" Its last words:\n{report}" if report else ""
    return ToolResult.error(
        "EXECUTION_ERROR",
        f"the sub-agent for '{description}' stopped before it finished ({why}).{partial}{named}",
        data={"agent_id": agent_id},
    )


async def refuse_in_background(request: ApprovalRequest) -> Approval:
    """A background sub-agent's approver: nobody is at its calls; say what would allow one."""
    return Reject(
        message=f"a background sub-agent cannot ask the user: {request.tool} needs approval ({request.reason}); "
        f"to allow it: {request.how_to_allow()}; or run the Task in the foreground"
    )


def _quiet(event: AgentEvent) -> None:
    """A background sub-agent's events are not shown (the cell that started it may have ended); its usage
    still counts, in its run's and the session's tallies."""


def kept_conversation(kept: KeptAgent | None) -> Conversation | None:
    """The conversation of a sub-agent being resumed (None for a new one)."""
    if kept is None or not isinstance(kept.conversation, Conversation):
        return None
    return kept.conversation


class _Relay:
    """Passes a sub-agent's events to the parent's UI: tool events tagged with the Task's id, usage as the
    parent run's totals, notices prefixed; its streamed text stays inside (the report is the result)."""

    def __init__(self, parent: AgentRun, call_id: str, description: str) -> None:
        self.parent = parent
        self.call_id = call_id
        self.description = description

    def emit(self, event: AgentEvent) -> None:
        parent = self.parent
        if isinstance(event, ToolStarted | ToolRunning | ToolProgress | ToolFinished):
            parent.emit(dataclasses.replace(event, parent_id=self.call_id))
        elif isinstance(event, UsageUpdate):
            parent.emit(
                dataclasses.replace(
                    event,
                    run=parent.tally.usage,
                    run_cost_usd=parent.tally.cost_usd,
                    session=parent.session_tally.usage,
                    session_cost_usd=parent.session_tally.cost_usd,
                )
            )
        elif isinstance(event, Notice):
            parent.emit(dataclasses.replace(event, message=f"Task '{self.description}': {event.message}"))
        elif isinstance(event, RetryWait):
            parent.emit(dataclasses.replace(event, reason=f"Task '{self.description}': {event.reason}"))
