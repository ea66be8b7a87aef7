"""The `%agent <subcommand>` table: each row is the name, its argument, its help line and what it does.

`%agent help` is built from this table, `RUN_FLAGS` and the settings' traits, so it cannot drift from them.
Adding a subcommand is one `Subcommand` row and its function; the function gets the kernel's agent and the
words after the name, returns the text to print (or None), and raises `CommandError` for a usage mistake.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..tools.permissions import MODES
from .configure import check_rules
from .options import RUN_FLAGS, split_rules
from .texts import history_text, status_text, tools_text

if TYPE_CHECKING:
    from ..runtime import KernelAgent


class CommandError(ValueError):
    """A usage mistake in `%agent …`; the magic shows it as a UsageError."""


@dataclass(frozen=True, kw_only=True)
class Subcommand:
    name: str
    help: str
    run: Callable[[KernelAgent, list[str]], str | None]
    #: The argument's placeholder in the help (`MODE`); empty when it takes none.
    arg: str = ""
    #: An example value, shown when a required argument is missing.
    example: str = ""


def _status(agent: KernelAgent, _args: list[str]) -> str:
    return status_text(agent.current_session(), agent.settings)


def _reset(agent: KernelAgent, _args: list[str]) -> str:
    agent.reset()
    return "conversation reset"


def _history(agent: KernelAgent, _args: list[str]) -> str:
    return history_text(agent.session)


def _tools(agent: KernelAgent, _args: list[str]) -> str:
    return tools_text(agent.current_session())


def _mode(agent: KernelAgent, args: list[str]) -> str:
    if args[0] not in MODES:
        raise CommandError(f"%agent mode: {args[0]!r} is not a mode; one of: {', '.join(MODES)}")
    agent.settings.mode = args[0]
    return f"mode: {agent.settings.mode}"


def _model(agent: KernelAgent, args: list[str]) -> str:
    agent.settings.model = args[0]
    return f"model: {agent.settings.model}"


def _rules(which: str) -> Callable[[KernelAgent, list[str]], str]:
    def add(agent: KernelAgent, args: list[str]) -> str:
        try:
            rules = split_rules([" ".join(args)])
            check_rules(agent.session, agent.settings, list(rules))
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        known: list[str] = list(getattr(agent.settings, which))
        setattr(agent.settings, which, known + [r for r in rules if r not in known])
        return f"{which}: {', '.join(getattr(agent.settings, which))}"

    return add


def _undo(agent: KernelAgent, _args: list[str]) -> str:
    return agent.undo()


def _mcp(agent: KernelAgent, args: list[str]) -> str:
    """`%agent mcp` lists the servers; `%agent mcp restart [NAME]` restarts one or all (a crashed one too)."""
    from .texts import mcp_text

    if not args:
        agent.sync_mcp()
        return mcp_text(agent.mcp.statuses())
    if args[0] != "restart" or len(args) > 2:
        raise CommandError("%agent mcp: use `%agent mcp` (list) or `%agent mcp restart [NAME]`")
    try:
        names = agent.run_blocking(agent.mcp.restart(args[1] if len(args) == 2 else None))
    except KeyError as exc:
        raise CommandError(f"%agent mcp restart: {exc.args[0]}") from None
    if not names:
        return "no MCP servers are configured (%config AgentMagics.mcp_servers = {...})"
    return f"restarting {', '.join(names)}; they connect in the background (`%agent mcp` shows their state)"


def _help(_agent: KernelAgent, _args: list[str]) -> str:
    return help_text()


SUBCOMMANDS: tuple[Subcommand, ...] = (
    Subcommand(name="status", help="model, mode, tokens, cost, tools", run=_status),
    Subcommand(name="reset", help="forget the conversation", run=_reset),
    Subcommand(name="history", help="past runs and the changes each made", run=_history),
    Subcommand(name="tools", help="the tools the model sees, with their source", run=_tools),
    Subcommand(
        name="mode",
        arg="MODE",
        example="acceptEdits",
        help="set the permission mode for the session",
        run=_mode,
    ),
    Subcommand(
        name="model",
        arg="MODEL",
        example="claude-sonnet-4-5",
        help="set the model for the session",
        run=_model,
    ),
    Subcommand(
        name="allow",
        arg="RULE",
        example="'Edit(src/**)'",
        help="add an allow rule for the session (e.g. Edit(notebooks/**))",
        run=_rules("allow"),
    ),
    Subcommand(
        name="deny", arg="RULE", example="Bash", help="add a deny rule for the session", run=_rules("deny")
    ),
    Subcommand(
        name="undo",
        help="revert the last run's file and cell changes (again for the one before)",
        run=_undo,
    ),
    Subcommand(
        name="mcp",
        help="MCP servers and their state; `%agent mcp restart [NAME]` restarts one or all",
        run=_mcp,
    ),
    Subcommand(name="help", help="this text", run=_help),
)
_BY_NAME = {command.name: command for command in SUBCOMMANDS}


def run_subcommand(agent: KernelAgent, words: list[str]) -> str | None:
    """`%agent WORDS…`: find the row, check its argument, run it; no words is `help`."""
    if not words:
        return help_text()
    name, args = words[0], words[1:]
    command = _BY_NAME.get(name)
    if command is None:
        raise CommandError(f"%agent: unknown subcommand {name!r}; one of: {', '.join(_BY_NAME)}")
    if command.arg and not args:
        raise CommandError(f"%agent {name} needs a value, e.g. %agent {name} {command.example}")
    return command.run(agent, args)


_COLUMN = 23


def _row(left: str, text: str) -> str:
    return f"{left:<{_COLUMN - 1}} {text}"


def help_text() -> str:
    """`%agent help`: the run flags, the subcommands and the settings' names, from their declarations."""
    from ..settings import AgentSettings

    lines = [
        _row("%%agent [options]", "the cell body is the request; the conversation continues across cells")
    ]
    for flag in RUN_FLAGS:
        lines.append(_row(f"  {flag.flag} {flag.metavar}".rstrip(), flag.help))
    lines.append("")
    for command in SUBCOMMANDS:
        lines.append(_row(f"%agent {command.name} {command.arg}".rstrip(), command.help))
    names = ", ".join(AgentSettings.class_own_traits(config=True))
    settings = f"Settings: %config AgentMagics.<name> = … ({names}). Shift+Tab on AgentMagics lists them."
    return "\n".join([*lines, "", *textwrap.wrap(settings, width=110)])
