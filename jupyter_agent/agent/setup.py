"""One run's configuration as a value: the host makes it from the settings and the run's flags
(`host/configure.py`'s `run_setup`); the session applies it in one place (`AgentSession.apply`).

Nothing here refers to a session: the command hooks get the session's facts and its way to tell the user as
callables when the session applies the setup.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..base.sandbox import Sandbox
from ..permissions.modes import Mode
from ..permissions.policy import DEFAULT_PROTECTED_PATHS, PermissionPolicy, Rule, ToolScope
from ..tools.command_hook_run import AskModel
from ..tools.command_hooks import CommandHook, CommandHooks, HookSession
from ..tools.core import AnyTool
from ..tools.hooks import Hooks, PostHook, PreHook
from .config import AgentConfig


@dataclass(frozen=True, kw_only=True)
class RunSetup:
    """How the next run calls the model, what it may do, which hooks and tools it has, and its roots."""

    config: AgentConfig
    sandbox: Sandbox
    mode: Mode = "default"
    allow: tuple[Rule, ...] = ()
    ask: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()
    protected: tuple[str, ...] = DEFAULT_PROTECTED_PATHS
    scope: ToolScope | None = None
    #: The settings' Python hooks, run before the project's command hooks.
    pre_tool_use: tuple[PreHook, ...] = ()
    post_tool_use: tuple[PostHook, ...] = ()
    #: A Claude Code project's hooks, run as commands.
    command_hooks: tuple[CommandHook, ...] = ()
    #: Tool pool sources this setup decides (opt-in tools, the project's tools), by source name.
    sources: Mapping[str, tuple[AnyTool, ...]] = field(default_factory=dict[str, tuple[AnyTool, ...]])
    #: Tools the settings asked for that this run does not offer, and why (`%agent tools` says it).
    withheld: Mapping[str, str] = field(default_factory=dict[str, str])

    def policy(self) -> PermissionPolicy:
        """A fresh policy: what a run adds to it ("Always allow", a switched mode) never reaches this value."""
        return PermissionPolicy(
            mode=self.mode,
            allow=list(self.allow),
            ask=list(self.ask),
            deny=list(self.deny),
            protected=self.protected,
            scope=self.scope,
        )

    def hooks(
        self,
        *,
        session: Callable[[], HookSession],
        report: Callable[[str], None],
        ask: AskModel | None = None,
        woken: list[str] | None = None,
    ) -> Hooks:
        """The Python hooks first, then the command hooks; `session` gives a command hook's common input
        fields at each call, `report` tells the user a line (on the worker thread), `ask` asks the session's model
        (a `prompt` hook's question); `woken`: the session's list of what `asyncRewake` hooks said (kept from one
        run's setup to the next)."""
        hooks = Hooks(
            pre_tool_use=list(self.pre_tool_use),
            post_tool_use=list(self.post_tool_use),
            woken=woken if woken is not None else [],
        )
        if not self.command_hooks:
            return hooks
        command = CommandHooks(
            self.command_hooks,
            session=session,
            report=report,
            halted=hooks.halted,
            ask=ask,
            woken=hooks.woken,
        )
        if command.of("PreToolUse"):
            hooks.pre_tool_use.append(command.pre_tool_use)
        if command.of("PreToolUse") or command.of("PostToolUse") or command.of("PostToolUseFailure"):
            hooks.post_tool_use.append(command.post_tool_use)
        if command.of("UserPromptSubmit"):
            hooks.user_prompt_submit.append(command.user_prompt_submit)
        if command.of("Stop"):
            hooks.stop.append(command.stop)
        if command.events() - {"PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop"}:
            hooks.events.append(command.fire)
        return hooks
