"""What a Claude Code project adds to a session's configuration, as values `host/configure.py` applies.

Kept apart from the host so the mapping of settings stays in one place there and this package owns what the
project files mean: rules (made absolute), the mode, extra roots, hooks as callables, and the tools (`Skill`,
the project's `Task`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..tools.command_hooks import CommandHook, CommandHooks, HookSession
from ..tools.core import AnyTool
from ..tools.hooks import PostHook, PreHook, PromptHook, StopHook
from ..tools.modes import Mode
from ..tools.permissions import Rule, ToolScope, parse_rules

if TYPE_CHECKING:
    from ..agent.session import AgentSession
    from .claude import ClaudeProject


@dataclass(frozen=True, kw_only=True)
class HookLists:
    pre_tool_use: list[PreHook] = field(default_factory=list[PreHook])
    post_tool_use: list[PostHook] = field(default_factory=list[PostHook])
    user_prompt_submit: list[PromptHook] = field(default_factory=list[PromptHook])
    stop: list[StopHook] = field(default_factory=list[StopHook])


@dataclass(frozen=True, kw_only=True)
class ProjectSetup:
    allow: list[Rule] = field(default_factory=list[Rule])
    ask: list[Rule] = field(default_factory=list[Rule])
    deny: list[Rule] = field(default_factory=list[Rule])
    default_mode: Mode | None = None
    roots: tuple[Path, ...] = ()
    hooks: tuple[CommandHook, ...] = ()
    tools: list[AnyTool] = field(default_factory=list[AnyTool])

    def mode(self, setting: str) -> str:
        """The package's `mode` setting wins when it is not the default; else the project's `defaultMode`."""
        return self.default_mode if setting == "default" and self.default_mode is not None else setting

    def hook_lists(self, session: AgentSession) -> HookLists:
        """The command hooks as the callables `Hooks` runs; failures are told in the running cell."""
        if not self.hooks:
            return HookLists()
        hooks = CommandHooks(self.hooks, session=lambda: session_facts(session), report=session.notify)

        return HookLists(
            pre_tool_use=[hooks.pre_tool_use] if hooks.of("PreToolUse") else [],
            post_tool_use=[hooks.post_tool_use] if hooks.of("PostToolUse") else [],
            user_prompt_submit=[hooks.user_prompt_submit] if hooks.of("UserPromptSubmit") else [],
            stop=[hooks.stop] if hooks.of("Stop") else [],
        )


def session_facts(session: AgentSession) -> HookSession:
    recorder = session.recorder
    return HookSession(
        session_id=recorder.id if recorder is not None else "",
        transcript_path=str(recorder.path) if recorder is not None and recorder.started else "",
        cwd=str(session.ctx.sandbox.cwd),
        permission_mode=session.policy.mode,
    )


def project_setup(project: ClaudeProject | None) -> ProjectSetup:
    """What `project` adds now (its settings re-read if a file changed); nothing without a project."""
    if project is None:
        return ProjectSetup()
    settings = project.settings
    return ProjectSetup(
        allow=parse_rules(r.effective for r in settings.rules("allow")),
        ask=parse_rules(r.effective for r in settings.rules("ask")),
        deny=parse_rules(r.effective for r in settings.rules("deny")),
        default_mode=settings.default_mode,
        roots=tuple(settings.additional_dirs),
        hooks=tuple(settings.hooks),
        tools=project.library.tools,
    )


def run_scope(allowed_tools: tuple[str, ...] | None, owner: str) -> ToolScope | None:
    """A command's `allowed-tools` for its run (None: the run is not narrowed)."""
    if allowed_tools is None:
        return None
    return ToolScope(rules=tuple(parse_rules(allowed_tools)), owner=owner or "this run")
