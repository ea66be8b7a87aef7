"""From settings to a session: which tools, which roots, which rules — and the texts `%agent` prints.

Kept apart from runtime.py so the UI thread's code stays about waiting and rendering.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from .tools.context import ToolContext
from .tools.core import AnyTool
from .tools.hooks import Hooks, PostHook, PreHook
from .tools.permissions import Mode, PermissionPolicy, parse_rules
from .tools.registry import ToolPool
from .tools.sandbox import Sandbox

if TYPE_CHECKING:
    from .agent.session import AgentSession
    from .runtime import KernelAgent


def builtin_tools() -> list[AnyTool]:
    from .tools.files import file_tools
    from .tools.kernel import kernel_tools
    from .tools.notebook import notebook_tools

    return [*file_tools(), *notebook_tools(), *kernel_tools()]


def build_session(agent: KernelAgent) -> AgentSession:
    from .agent.config import DEFAULT_MODEL, AgentConfig, Provider
    from .agent.session import AgentSession
    from .notebook.provider import NotebookProvider, kernel_notebook_path

    settings = agent.settings
    nb_path = kernel_notebook_path(agent.shell.user_ns if agent.shell is not None else None)
    cwd = nb_path.parent if nb_path is not None else Path.cwd()
    sandbox = Sandbox.at(cwd, roots=tuple(settings.roots))
    ctx = ToolContext(sandbox=sandbox, namespace=agent.shell.user_ns if agent.shell is not None else None)
    ctx.services.update(
        shell=agent.shell,
        main_thread=agent.channel,
        notebooks=NotebookProvider(default_path=nb_path, kernel=agent.kernel),
    )
    pool = ToolPool()
    pool.set_source("builtin", builtin_tools())
    pool.set_source("user", list(agent.user_tools.values()))
    config = AgentConfig(
        model=settings.model or DEFAULT_MODEL,
        provider=cast("Provider", settings.provider),
        max_turns=settings.max_turns,
        max_tokens=settings.max_tokens,
        budget_usd=settings.budget_usd or None,
    )
    session = AgentSession(
        pool=pool,
        ctx=ctx,
        config=config,
        policy=PermissionPolicy(),
        hooks=Hooks(),
        notebook_path=str(nb_path) if nb_path is not None else None,
        kernel=_kernel_name(agent),
    )
    _connect_mcp(agent, session)
    return session


def _kernel_name(agent: KernelAgent) -> str:
    kernel = agent.kernel
    if kernel is None:
        return "IPython (terminal)"
    import sys

    return f"ipykernel {getattr(kernel, 'implementation_version', '')} · Python {sys.version.split()[0]} · pid {os.getpid()}"


def _connect_mcp(agent: KernelAgent, session: AgentSession) -> None:
    servers: dict[str, Any] = dict(agent.settings.mcp_servers)
    if not servers:
        return
    from .tools.mcp import connect_mcp_servers

    connections = agent.worker.submit(connect_mcp_servers(servers)).result(timeout=60)
    session.pool.set_source("mcp", connections.tools)
    agent.mcp = connections
    for error in connections.errors.values():
        print(f"jupyter_agent: {error}")


def apply_settings(
    agent: KernelAgent, session: AgentSession, *, mode: str | None, allow: list[str], deny: list[str]
) -> None:
    """Settings may change between runs (`%config`, `%agent mode`): bring the session up to date."""
    from dataclasses import replace

    from .agent.config import Provider

    settings = agent.settings
    policy = session.policy
    policy.mode = cast("Mode", mode or settings.mode)
    policy.allow = parse_rules([*settings.allow, *allow])
    policy.ask = parse_rules(list(settings.ask))
    policy.deny = parse_rules([*settings.deny, *deny])
    session.hooks.pre_tool_use = [cast(PreHook, h) for h in settings.pre_tool_use]
    session.hooks.post_tool_use = [cast(PostHook, h) for h in settings.post_tool_use]
    session.pool.denied = [str(r) for r in policy.deny if r.pattern is None]
    bash_wanted = settings.enable_bash or any(r.tool == "Bash" for r in policy.allow)
    if bash_wanted:
        from .tools.shell import bash_tool

        session.pool.set_source("bash", [bash_tool()])
    else:
        session.pool.set_source("bash", [])
    sandbox = session.ctx.sandbox
    wanted = Sandbox.at(sandbox.cwd, roots=tuple(settings.roots), limits=sandbox.limits)
    if (
        wanted.roots != sandbox.roots
    ):  # `%config AgentMagics.roots = …` since the last run, including back to []
        session.ctx.sandbox = wanted
    session.config = replace(
        session.config,
        model=settings.model or session.config.model,
        provider=cast("Provider", settings.provider),
        max_turns=settings.max_turns,
        max_tokens=settings.max_tokens,
        budget_usd=settings.budget_usd or None,
    )


def collect_granted_rules(agent: KernelAgent, session: AgentSession, run_allow: list[str]) -> None:
    """ "Always allow" answers added rules to the session's policy; keep them in the settings for later runs."""
    known = {*agent.settings.allow, *run_allow}
    granted = [str(r) for r in session.policy.allow if str(r) not in known]
    if granted:
        agent.settings.allow = [*agent.settings.allow, *granted]


def current_session(agent: KernelAgent) -> AgentSession:
    """The session with the settings as they are now (`%agent model …` may have changed them since the last run)."""
    session = agent.session
    if not session.running:
        apply_settings(agent, session, mode=None, allow=[], deny=[])
    return session


def status_text(agent: KernelAgent) -> str:
    session = current_session(agent)
    status = session.status
    u = status.usage
    settings = agent.settings
    return "\n".join(
        [
            f"model:    {status.model} ({status.provider})",
            f"mode:     {settings.mode}",
            f"rules:    allow {_listed(settings.allow)} · ask {_listed(settings.ask)} · deny {_listed(settings.deny)}",
            f"runs:     {status.runs}{' (running)' if status.running else ''} · {status.messages} messages"
            f" · ~{status.estimated_tokens:,} of {status.context_window:,} context tokens",
            f"tokens:   {u.input:,} in · {u.output:,} out · cache {u.cache_read:,} read / {u.cache_write:,} written",
            f"cost:     ${status.cost_usd:.4f}",
            f"tools:    {', '.join(status.tools)}",
        ]
    )


def _listed(rules: list[str]) -> str:
    return str(list(rules)) if rules else "—"


def tools_text(agent: KernelAgent) -> str:
    pool = current_session(agent).pool
    active = pool.active()
    lines = []
    for name, tool in active.items():
        flags = "read-only" if tool.read_only else tool.kind
        lines.append(
            f"{name:<16} {pool.source_of(name) or '?':<8} {flags:<10} {tool.description.splitlines()[0][:70]}"
        )
    hidden = sorted(set(pool.merged()) - set(active))
    if hidden:
        lines.append(f"hidden by deny rules: {', '.join(hidden)}")
    return "\n".join(lines)


def history_text(agent: KernelAgent) -> str:
    from .agent.undo import describe_change

    journals = agent.session.history
    if not journals:
        return "no runs yet"
    lines: list[str] = []
    for journal in journals:
        request = journal.request.strip().splitlines()[0][:80] if journal.request.strip() else ""
        undone = " (undone)" if journal.undone else ""
        lines.append(f"run {journal.run_id}: {request}{undone}")
        lines += [f"    {describe_change(c, agent.session.ctx.sandbox)}" for c in journal.changes] or [
            "    no changes"
        ]
    return "\n".join(lines)


def undo_last_run(agent: KernelAgent) -> str:
    from .agent.undo import undo_run

    session = agent.session
    for journal in reversed(session.history):
        if journal.changes and not journal.undone:
            return agent.run_blocking(undo_run(journal, session.ctx))
    return "nothing to undo"
