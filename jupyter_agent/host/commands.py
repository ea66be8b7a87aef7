"""The `%agent <subcommand>` table: each row is the name, its argument, its help line and what it does.

`%agent help` and the docs' reference pages are built from this table, `RUN_FLAGS`, the settings' traits and the
tools' definitions (host/reference.py), so they cannot drift from them.
Adding a subcommand is one `Subcommand` row and its function; the function gets the kernel's agent and the
words after the name, returns the text to print, a `Report` to display (HTML table + text), or None, and
raises `CommandError` for a usage mistake. `%agent <anything else>` is a one-line request to the agent.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..permissions.modes import MODES
from ..ui.tables import Report
from . import reference
from .command_error import CommandError
from .configure import check_rules
from .fix_command import fix_command
from .options import RUN_FLAGS, split_rules
from .project_commands import ProjectCommandError, mcp_command, plugins, rules, run_slash, skills, trust
from .review_commands import REVIEW_HELP, review_command
from .rewind_command import REWIND_HELP, rewind_command
from .texts import history_report, memory_text, sessions_text, status_report, tools_report
from .verify_command import verify_command

if TYPE_CHECKING:
    from .kernel_agent import KernelAgent


Output = str | Report | None


@dataclass(frozen=True, kw_only=True)
class Subcommand:
    name: str
    help: str
    run: Callable[[KernelAgent, list[str]], Output]
    #: The argument's placeholder in the help (`MODE`); empty when it takes none.
    arg: str = ""
    #: An example value, shown when a required argument is missing.
    example: str = ""
    #: The placeholder of an optional argument (`ID` shows as `[ID]`).
    optional: str = ""
    #: It reads more words itself (`%agent mcp restart NAME`); otherwise one with no argument refuses any.
    own_words: bool = False

    @property
    def usage(self) -> str:
        arg = self.arg or (f"[{self.optional}]" if self.optional else "")
        return f"%agent {self.name} {arg}".rstrip()


def _status(agent: KernelAgent, _args: list[str]) -> Report:
    from ..serve import serve_status

    extra = (("serve", serve_status(agent)),)
    return status_report(agent.current_session(), agent.settings, agent.project, extra=extra)


def _serve(agent: KernelAgent, args: list[str]) -> str | None:
    from ..serve import ServeUsageError, serve_command

    try:
        return serve_command(agent, args)
    except (ServeUsageError, OSError) as exc:
        raise CommandError(str(exc)) from None


def _reset(agent: KernelAgent, _args: list[str]) -> str:
    agent.reset()
    return "conversation reset"


def _history(agent: KernelAgent, _args: list[str]) -> Report:
    return history_report(agent.session)


def _tools(agent: KernelAgent, _args: list[str]) -> Report:
    return tools_report(agent.current_session())


def _context(agent: KernelAgent, _args: list[str]) -> str:
    update = agent.current_session().pending_update()
    told = f"\n\nThe next request also says:\n{update}" if update is not None else ""
    note = agent.kernel_note(peek=True)
    if note is None:
        return "nothing new in the kernel since the agent last looked" + told
    figures = f"\n(+ {len(note.images)} figure(s) attached as images)" if note.images else ""
    state = "" if agent.settings.context else "\n(not sent: %config AgentMagics.context = False)"
    return note.text + figures + state + told  # printed through the display gate, which masks it


def _mode(agent: KernelAgent, args: list[str]) -> str:
    if args[0] not in MODES:
        raise CommandError(f"%agent mode: {args[0]!r} is not a mode; one of: {', '.join(MODES)}")
    agent.set_mode(args[0])
    return f"mode: {agent.settings.mode}"


def _model(agent: KernelAgent, args: list[str]) -> str:
    agent.settings.model = args[0]
    return f"model: {agent.settings.model}"


def _rules(which: str) -> Callable[[KernelAgent, list[str]], str]:
    def add(agent: KernelAgent, args: list[str]) -> str:
        try:
            rules = split_rules([" ".join(args)])
            offered = (
                [s.name for s in agent.project.settings.mcp.servers] if agent.project is not None else []
            )
            check_rules(agent.session, agent.settings, list(rules), mcp_servers=offered)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        known: list[str] = list(getattr(agent.settings, which))
        setattr(agent.settings, which, known + [r for r in rules if r not in known])
        return f"{which}: {', '.join(getattr(agent.settings, which))}"

    return add


def _undo(agent: KernelAgent, args: list[str]) -> str:
    if args not in ([], ["--force"]):
        raise CommandError(
            f"%agent undo takes no argument but --force, not {' '.join(args)!r}; run `%agent undo` alone"
        )
    return agent.undo(force=bool(args))


def _help(_agent: KernelAgent, _args: list[str]) -> Report:
    return help_report()


def _memory(agent: KernelAgent, _args: list[str]) -> str:
    return memory_text(agent.current_session())


def _sessions(agent: KernelAgent, _args: list[str]) -> str:
    return sessions_text(agent.current_session())


def _resume(agent: KernelAgent, args: list[str]) -> str:
    from ..sessions.store import SessionNotFound

    try:
        return agent.resume(args[0] if args else None)
    except SessionNotFound as exc:
        raise CommandError(str(exc)) from None


def _export(agent: KernelAgent, args: list[str]) -> str:
    from ..base.errors import ToolError
    from ..sessions.export import ExportRefused

    try:
        return agent.export(args[0] if args else None)
    except ExportRefused as exc:
        raise CommandError(str(exc)) from None
    except ToolError as exc:  # outside the kernel's directory and the roots, or through a link
        raise CommandError(f"%agent export: {exc.code}: {exc.message}") from None


def _compact(agent: KernelAgent, _args: list[str]) -> str:
    return agent.compact()


def _jobs(agent: KernelAgent, _args: list[str]) -> str:
    from ..builtin_tools.jobs import background_jobs

    return background_jobs(agent.session.ctx).listing()


SUBCOMMANDS: tuple[Subcommand, ...] = (
    Subcommand(
        name="status",
        help="model, mode, tokens, costs, cache-read share, tools; the notebook's frontend and backend; the Bash sandbox",
        run=_status,
    ),
    Subcommand(name="reset", help="forget the conversation and start a new one", run=_reset),
    Subcommand(name="history", help="past runs and the changes each made", run=_history),
    Subcommand(name="tools", help="the tools the model sees and where they come from", run=_tools),
    Subcommand(
        name="context",
        help="what the next request will tell the agent about what you did in the kernel",
        run=_context,
    ),
    Subcommand(
        name="fix",
        optional="CELL_ID",
        help="ask the agent to explain and fix the last error, or that cell's (also the Fix with agent button "
        "under a traceback, and Fix this cell with the agent in a cell's menu)",
        run=fix_command,
    ),
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
        example="claude-opus-5-5",
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
        optional="--force",
        help="revert the last run's changes to files, cells and the kernel's variables (again for the one before); "
        "--force also puts back variables undo could not check for your later changes",
        run=_undo,
    ),
    Subcommand(name="review", optional="RUN", help=REVIEW_HELP, run=review_command),
    Subcommand(name="rewind", optional="N", help=REWIND_HELP, run=rewind_command),
    Subcommand(
        name="verify",
        optional="PATH",
        help="run the notebook top to bottom in a fresh kernel (yours is not touched); --timeout S per cell, "
        "--until CELL_ID",
        run=verify_command,
    ),
    Subcommand(
        name="mcp",
        help="MCP servers, where each is configured and its state; `%agent mcp restart [NAME]` restarts one or "
        "all; `%agent mcp approve NAME` starts a server of the project's .mcp.json",
        run=mcp_command,
        own_words=True,
    ),
    Subcommand(
        name="serve",
        optional="stop",
        help="an MCP server in this kernel for an outside agent (Claude Code, Cursor), on 127.0.0.1 with a token: "
        "--port N, --token-file PATH, --mode MODE, --allow RULES, --deny RULES, --approval-timeout S (docs/serve.md); "
        "`%agent serve stop` stops it",
        run=_serve,
        own_words=True,
    ),
    Subcommand(
        name="jobs", help="background shell jobs (Bash with run_in_background) and their status", run=_jobs
    ),
    Subcommand(
        name="compact",
        help="replace the conversation by the model's summary of it, now, to free context",
        run=_compact,
    ),
    Subcommand(name="memory", help="the AGENTS.md / CLAUDE.md files in the system prompt", run=_memory),
    Subcommand(
        name="sessions", help="this notebook's saved sessions: id, date, cost, first request", run=_sessions
    ),
    Subcommand(
        name="resume",
        optional="ID",
        help="continue the latest saved session of this notebook (or session ID), e.g. after a kernel restart",
        run=_resume,
    ),
    Subcommand(
        name="export",
        optional="PATH",
        help=(
            "write this conversation as Markdown (default `agent-session-<id>.md` in the working directory, or "
            "in PATH when it is a directory) under the working directory or a root, no link followed out "
            "(`OUTSIDE_ROOTS`); a file that is not an earlier export is never written over (`EXPORT_TARGET_EXISTS`)"
        ),
        run=_export,
    ),
    Subcommand(
        name="rules",
        help="every permission rule and where it came from: a Claude Code settings file or AgentMagics "
        "(also in %agent status)",
        run=rules,
    ),
    Subcommand(
        name="skills",
        help="the project's skills, custom commands and sub-agents, and the MCP servers' prompts",
        run=skills,
    ),
    Subcommand(
        name="plugins",
        help="the Claude Code plugins enabledPlugins turns on: what each brought, and what was skipped and why",
        run=plugins,
    ),
    Subcommand(
        name="trust",
        help="trust this Claude Code project: its hooks, allow rules, defaultMode and additionalDirectories apply",
        run=trust,
    ),
    Subcommand(name="help", help="all of the above: flags, subcommands and the settings' names", run=_help),
)
_BY_NAME = {command.name: command for command in SUBCOMMANDS}
_RUN_FLAGS = {flag.flag for flag in RUN_FLAGS}


def run_subcommand(agent: KernelAgent, words: list[str], line: str = "") -> Output:
    """`%agent WORDS…`: find the row, check its argument, run it; no words is `help`.

    A first word that is no subcommand makes the whole line a one-line request (`%agent why is df
    empty?`), except a lone word close to a subcommand, which is taken for a typo (`%agent stauts`).
    """
    if not words:
        return help_report()
    name, args = words[0], words[1:]
    if name.startswith("/") and len(name) > 1:
        rest = line.strip()[len(name) :].strip() if line.strip().startswith(name) else " ".join(args)
        try:
            run_slash(agent, name[1:], rest)
        except ProjectCommandError as exc:
            raise CommandError(str(exc)) from None
        return None
    flag = name.split("=", 1)[0]
    if flag.startswith("--"):  # `%agent --new`: an option where a request or a subcommand goes
        close = difflib.get_close_matches(flag, sorted(_RUN_FLAGS), n=1)
        known = flag if flag in _RUN_FLAGS else (close[0] if close else "--new")
        raise CommandError(
            f"%agent: options such as {known} go on a %%agent cell's first line: write `%%agent {known} …` with "
            "the request in the cell body (%agent help lists the options)"
        )
    command = _BY_NAME.get(name)
    if command is None:
        close = difflib.get_close_matches(name, list(_BY_NAME), n=1)
        if not args and close:
            raise CommandError(
                f"%agent: unknown subcommand {name!r}; did you mean %agent {close[0]}? "
                f"(a request needs more than one word, or use a %%agent cell)"
            )
        agent.run_cell((line or " ".join(words)).strip())
        return None
    if command.arg and not args:
        raise CommandError(f"%agent {name} needs a value, e.g. %agent {name} {command.example}")
    if args and not (command.arg or command.optional or command.own_words):
        raise CommandError(
            f"%agent {name} takes no argument, not {' '.join(args)!r}; run `%agent {name}` alone, or write a "
            f"request that starts with {name!r} in a %%agent cell"
        )
    return command.run(agent, args)


def command_rows() -> list[tuple[str, str]]:
    """(usage, help) of every subcommand, in the table's order: what `%agent help` and the docs list."""
    return [(command.usage, command.help) for command in SUBCOMMANDS]


def help_report() -> Report:
    """`%agent help`: the first steps, then the run flags, the subcommands and the settings (host/reference.py)."""
    return reference.help_report(command_rows())


def help_text() -> str:
    return help_report().text


def reference_pages() -> dict[str, str]:
    """The documentation site's reference pages (`docs/conf.py` writes them), by file name without `.md`."""
    return {
        "magics": reference.magics_markdown(command_rows()),
        "settings": reference.settings_markdown(),
        "tools": reference.tools_markdown(),
    }
