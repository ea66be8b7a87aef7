"""`AgentSession`: one per kernel — the conversation, the tools, the rules, the usage — across `%%agent` cells."""

from __future__ import annotations

from dataclasses import dataclass

from ..tools.context import ToolContext
from ..tools.dispatch import Approver, Dispatcher, OnGrant
from ..tools.hooks import Hooks
from ..tools.journal import RunJournal
from ..tools.permissions import PermissionPolicy
from ..tools.registry import ToolPool
from ..tools.workflow import POLICY_SERVICE, todo_list
from .client import ModelClient
from .config import AgentConfig
from .conversation import Conversation
from .events import Emit, RunFinished, Usage
from .loop import AgentRun, Tally
from .prompt import PromptFacts, system_prompt
from .subagent import SUBAGENTS_SERVICE, Subagents


@dataclass(frozen=True, kw_only=True)
class SessionStatus:
    """What `%agent status` shows."""

    model: str
    provider: str
    mode: str
    running: bool
    runs: int
    messages: int
    estimated_tokens: int
    context_window: int
    usage: Usage
    cost_usd: float
    tools: tuple[str, ...]


class AgentSession:
    """Holds everything that lives as long as the kernel's agent; `run` is one `%%agent` cell."""

    def __init__(
        self,
        *,
        pool: ToolPool,
        ctx: ToolContext,
        config: AgentConfig | None = None,
        policy: PermissionPolicy | None = None,
        hooks: Hooks | None = None,
        notebook_path: str | None = None,
        kernel: str = "python3",
        client: ModelClient | None = None,
    ) -> None:
        self.pool = pool
        self.ctx = ctx
        self.config = config or AgentConfig()
        self.policy = policy or PermissionPolicy()
        self.hooks = hooks or Hooks()
        self.notebook_path = notebook_path
        self.kernel = kernel
        self.client = client or ModelClient()
        self.conversation = Conversation()
        self.journals: list[RunJournal] = []
        self._tally = Tally()
        self._run_id = 0
        self._running = False

    # runs

    async def run(
        self,
        request: str,
        *,
        emit: Emit,
        approver: Approver,
        on_grant: OnGrant | None = None,
        max_turns: int | None = None,
        model: str | None = None,
    ) -> RunFinished:
        """Run the agent on `request`, continuing the conversation. `emit` is called on this loop's thread.

        `on_grant` hears each rule an "Always allow" answer adds to this session's policy (on the worker thread).
        """
        if self._running:
            raise RuntimeError("an agent run is already in progress in this session; stop it first")
        self._running = True
        try:
            self._run_id += 1
            journal = RunJournal(run_id=self._run_id, request=request)
            self.ctx.journal = journal
            self.ctx.services[POLICY_SERVICE] = self.policy
            self.journals.append(journal)
            config = self.config.with_overrides(model=model, max_turns=max_turns)
            dispatcher = Dispatcher(
                pool=self.pool, policy=self.policy, hooks=self.hooks, approver=approver, on_grant=on_grant
            )
            run = AgentRun(
                run_id=self._run_id,
                conversation=self.conversation,
                client=self.client,
                dispatcher=dispatcher,
                ctx=self.ctx,
                config=config,
                system=self.system_prompt(dispatcher),
                emit=emit,
                session=self._tally,
                mode=self.policy.mode,
            )
            self.ctx.services[SUBAGENTS_SERVICE] = Subagents(
                run, kernel=self.kernel, notebook_path=self.notebook_path
            )
            return await run.run(request)
        finally:
            self.ctx.services.pop(SUBAGENTS_SERVICE, None)
            self._running = False

    def system_prompt(self, dispatcher: Dispatcher | None = None) -> str:
        tools = (dispatcher or Dispatcher(pool=self.pool)).tools()
        return system_prompt(
            PromptFacts(
                cwd=str(self.ctx.sandbox.cwd),
                kernel=self.kernel,
                mode=self.policy.mode,
                tool_names=tuple(tools),
                notebook_path=self.notebook_path,
                extra_instructions=self.config.extra_instructions,
            )
        )

    def reset(self) -> None:
        """Forget the conversation, what was read (the next edit needs a fresh read) and the todo list;
        keep usage and history."""
        if self._running:
            raise RuntimeError("cannot reset while a run is in progress; stop it first")
        self.conversation.reset()
        self.ctx.reads.clear()
        todo_list(self.ctx).clear()

    async def aclose(self) -> None:
        """Close the SDK client's connections (on the loop that used them) before that loop goes away."""
        await self.client.close()

    # what the magics show

    @property
    def running(self) -> bool:
        return self._running

    @property
    def usage(self) -> Usage:
        return self._tally.usage

    @property
    def cost_usd(self) -> float:
        return self._tally.cost_usd

    @property
    def run_count(self) -> int:
        return self._run_id

    @property
    def status(self) -> SessionStatus:
        tools = Dispatcher(pool=self.pool).tools()
        system_chars = len(self.system_prompt()) + sum(len(str(t.to_param())) for t in tools.values())
        return SessionStatus(
            model=self.config.model,
            provider=self.config.provider,
            mode=self.policy.mode,
            running=self._running,
            runs=self._run_id,
            messages=len(self.conversation),
            estimated_tokens=self.conversation.estimated_prompt_tokens(system_chars),
            context_window=self.config.window,
            usage=self._tally.usage,
            cost_usd=self._tally.cost_usd,
            tools=tuple(tools),
        )

    @property
    def history(self) -> list[RunJournal]:
        """Past runs, oldest first: each with its request and the changes it made (for undo)."""
        return list(self.journals)
