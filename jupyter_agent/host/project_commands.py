"""The `%agent` subcommands of a Claude Code project: `rules`, `skills`, `plugins`, `trust`, and `/name args`.

`/name args` runs a custom command or a skill (project/slash.py), or an MCP prompt (`/mcp__server__prompt`,
fetched from the server on the worker's loop); the run's model and allowed tools come from the command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..ui.tables import Report
from .command_error import CommandError
from .options import RunOptions
from .project_texts import plugins_text, rules_report, skills_report

if TYPE_CHECKING:
    from ..base.result import ToolResult
    from ..project.slash import SlashRun
    from .kernel_agent import KernelAgent

#: The MCP prompts' commands start so (`%agent /mcp__notes__summary`).
MCP_PREFIX = "mcp__"


class ProjectCommandError(ValueError):
    """A usage mistake; `host/commands.py` shows it as its own CommandError."""


def rules(agent: KernelAgent, _args: list[str]) -> Report:
    agent.current_session()  # the settings files are read again if they changed
    return rules_report(agent.settings, agent.project)


def skills(agent: KernelAgent, _args: list[str]) -> Report:
    return skills_report(agent.project, mcp_prompts(agent))


def plugins(agent: KernelAgent, _args: list[str]) -> str:
    project = agent.project
    if project is None:
        raise ProjectCommandError(
            "%agent plugins: claude_project is off (%config AgentMagics.claude_project = True)"
        )
    return plugins_text(project)


def trust(agent: KernelAgent, _args: list[str]) -> str:
    project = agent.project
    if project is None:
        raise ProjectCommandError(
            "%agent trust: claude_project is off (%config AgentMagics.claude_project = True)"
        )
    return project.trust()


def mcp_prompts(agent: KernelAgent) -> list[tuple[str, str]]:
    """(command, description) of the connected MCP servers' prompts; none when no server is configured."""
    project = agent.project.settings.mcp.started() if agent.project is not None else {}
    if not agent.settings.mcp_servers and not project:
        return []
    from ..builtin_tools.mcp.prompts import prompt_commands

    return [(p.command, p.description) for p in agent.run_blocking(prompt_commands(agent.mcp))]


def run_slash(agent: KernelAgent, name: str, args: str) -> None:
    """`%agent /name args`: the command's, skill's or MCP prompt's request, run like a `%%agent` cell."""
    if name.startswith(MCP_PREFIX):
        from ..builtin_tools.mcp.prompts import PromptError, prompt_request

        try:
            request = agent.run_blocking(prompt_request(agent.mcp, name, args))
        except PromptError as exc:
            raise ProjectCommandError(f"%agent /{name}: {exc}") from None
        agent.run_cell(request)
        return
    project = agent.project
    if project is None:
        raise ProjectCommandError(
            f"%agent /{name}: commands and skills come from .claude/, which is not read (claude_project is off)"
        )
    from ..project.slash import UnknownCommand, refusal, slash_run

    refused = refusal(agent.current_session().policy, name, args)
    if refused is not None:
        raise ProjectCommandError(refused)
    try:
        run = slash_run(name, args, project.library)
    except UnknownCommand as exc:
        raise ProjectCommandError(str(exc)) from None
    hidden = project.library.shadowing(run.kind, name)
    if hidden is not None:  # a repository's command of your command's name: say whose runs
        print(
            f"jupyter_agent: /{name} runs {hidden.by}, which replaces the {hidden.hidden_where}'s {hidden.hidden}"
        )
    request = filled_in(agent, run)
    agent.run_cell(
        request, RunOptions(model=run.model, allowed_tools=run.allowed_tools, scope_owner=run.owner)
    )


def filled_in(agent: KernelAgent, run: SlashRun) -> str:
    """The request with its `` !`cmd` `` outputs and `@file` texts, each through the session's tool gate under
    the command's `allowed-tools`, with nobody to ask: what would ask is refused, naming the rule that allows it.
    A project's `!` runs nothing until the project is trusted."""
    import dataclasses

    from ..project.command_context import AT, ContextRefused, fill_in, has_context
    from ..project.setup import run_scope
    from ..tools.core import ToolCall
    from ..tools.dispatch import Dispatcher, refuse_all

    if not has_context(run.request) and AT.search(run.request) is None:
        return run.request
    project = agent.project
    if (
        has_context(run.request)
        and run.where == "project"
        and (project is None or project.settings.trusted is None)
    ):
        raise ProjectCommandError(
            f"{run.owner}: its !`…` lines run nothing until you trust this project: run %agent trust"
        )
    session = agent.current_session()
    policy = dataclasses.replace(session.policy, scope=run_scope(run.allowed_tools, run.owner))
    gate = Dispatcher(pool=session.pool, policy=policy, hooks=session.hooks, approver=refuse_all)
    calls = iter(range(1, 1_000_000))

    async def run_tool(name: str, tool_input: dict[str, Any]) -> ToolResult:
        call = ToolCall(id=f"toolu_context_{next(calls)}", name=name, input=tool_input)
        return (await gate.dispatch(call, session.ctx)).result

    try:
        return agent.run_blocking(
            fill_in(run.request, run_tool, cwd=session.ctx.sandbox.cwd, owner=run.owner)
        )
    except ContextRefused as exc:
        raise ProjectCommandError(str(exc)) from None


def approve_command(agent: KernelAgent, name: str) -> str:
    """`%agent mcp approve NAME`: the project's server starts (in the background), now and in later sessions."""
    if agent.project is None:
        raise CommandError("%agent mcp approve: the claude_project setting is off, so no .mcp.json is read")
    try:
        said = agent.project.approve_mcp_server(name)
    except KeyError as exc:
        raise CommandError(f"%agent mcp approve: {exc.args[0]}") from None
    agent.sync_mcp()
    return said


def mcp_command(agent: KernelAgent, args: list[str]) -> str:
    """`%agent mcp` lists the servers; `%agent mcp restart [NAME]` restarts one or all (a crashed one too);
    `%agent mcp approve NAME` approves a server of the project's `.mcp.json`."""
    from .texts import mcp_text

    if not args:
        agent.sync_mcp()
        return mcp_text(agent.mcp.statuses())
    if args[0] == "approve" and len(args) == 2:
        return approve_command(agent, args[1])
    if args[0] != "restart" or len(args) > 2:
        raise CommandError(
            "%agent mcp: use `%agent mcp` (list), `%agent mcp restart [NAME]` or `%agent mcp approve NAME`"
        )
    try:
        names = agent.run_blocking(agent.mcp.restart(args[1] if len(args) == 2 else None))
    except KeyError as exc:
        raise CommandError(f"%agent mcp restart: {exc.args[0]}") from None
    if not names:
        return "no MCP servers are configured (%config AgentMagics.mcp_servers = {...})"
    return f"restarting {', '.join(names)}; they connect in the background (`%agent mcp` shows their state)"
