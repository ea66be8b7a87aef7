"""`%%agent` and `%agent …`: thin — parse the line, hand off to the kernel's agent (runtime.py)."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from .settings import AgentSettings
from .tools.permissions import MODES, Rule

if TYPE_CHECKING:
    from .runtime import KernelAgent

SUBCOMMANDS = ("status", "reset", "history", "tools", "mode", "model", "allow", "deny", "undo", "help")
HELP = """\
%%agent [options]      the cell body is the request; the conversation continues across cells
  --new                start a fresh conversation
  --model MODEL        model for this run
  --mode MODE          default | acceptEdits | plan | bypassPermissions (this run)
  --max-turns N        stop after N model turns
  --allow RULES        allow rules for this run, e.g. --allow "Edit(src/**),Bash(git status*)"
  --deny RULES         deny rules for this run (bare tool names are also hidden from the model)
  --quiet              cards and intermediate text collapsed; only the final answer open

%agent status          model, mode, tokens, cost, tools
%agent reset           forget the conversation
%agent history         past runs and the changes each made
%agent tools           the tools the model sees, with their source
%agent mode MODE       set the permission mode for the session
%agent model MODEL     set the model for the session
%agent allow RULE      add an allow rule for the session (e.g. Edit(notebooks/**))
%agent deny RULE       add a deny rule for the session
%agent undo            revert the last run's file and cell changes (again for the one before)
%agent help            this text

Settings: %config AgentMagics.<name> = … (model, mode, allow, ask, deny, roots, max_turns, budget_usd,
enable_bash, mcp_servers, quiet, pre_tool_use, post_tool_use). Shift+Tab on AgentMagics lists them."""


def split_rules(values: list[str] | None) -> list[str]:
    """`--allow "Read,Edit(src/**)" --allow Bash` → ['Read', 'Edit(src/**)', 'Bash']; commas inside () stay."""
    rules: list[str] = []
    for value in values or []:
        depth, current = 0, ""
        for char in value:
            if char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
            if char == "," and depth == 0:
                rules.append(current.strip())
                current = ""
            else:
                current += char
        rules.append(current.strip())
    rules = [r for r in rules if r]
    for rule in rules:
        try:
            Rule.parse(rule)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    return rules


@magics_class
class AgentMagics(Magics, AgentSettings):
    """The `%%agent` cell magic and the `%agent` line magic; settings are this class's traitlets."""

    def __init__(self, shell: Any = None, **kwargs: Any) -> None:
        super().__init__(shell=shell, **kwargs)
        self._agent: KernelAgent | None = None

    @property
    def kernel_agent(self) -> KernelAgent:
        if self._agent is None:
            from .runtime import KernelAgent

            self._agent = KernelAgent(shell=self.shell, settings=self)
        return self._agent

    @magic_arguments()
    @argument("--new", action="store_true", help="start a fresh conversation")
    @argument("--model", help="model for this run")
    @argument("--mode", choices=list(MODES), help="permission mode for this run")
    @argument("--max-turns", type=int, help="stop after this many model turns")
    @argument("--allow", action="append", help="allow rules for this run (comma-separated)")
    @argument("--deny", action="append", help="deny rules for this run (comma-separated)")
    @argument("--quiet", action="store_true", help="collapse cards and intermediate text")
    @argument("words", nargs="*", help="as a line magic: a subcommand (see %%agent help)")
    @line_cell_magic("agent")  # pyright: ignore[reportUntypedFunctionDecorator]
    def agent_magic(self, line: str, cell: str | None = None) -> None:
        """Ask the agent (cell body) or manage it (`%agent help`)."""
        if cell is None:
            self._subcommand(line)
            return
        args = parse_argstring(self.agent_magic, line)
        if args.words:
            raise UsageError(
                f"%%agent takes options only, not {' '.join(args.words)!r}; the request is the cell body"
            )
        if not cell.strip():
            raise UsageError("%%agent needs a request in the cell body, e.g. 'Explain the last error'")
        if args.max_turns is not None and args.max_turns < 1:
            raise UsageError("--max-turns must be at least 1")
        self.kernel_agent.run_cell(
            cell.strip(),
            new=args.new,
            model=args.model,
            mode=args.mode,
            max_turns=args.max_turns,
            allow=split_rules(args.allow),
            deny=split_rules(args.deny),
            quiet=args.quiet or self.quiet,
        )

    def _subcommand(self, line: str) -> None:
        try:
            words = shlex.split(line)
        except ValueError as exc:
            raise UsageError(f"%agent: {exc}") from None
        if not words or words[0] == "help":
            print(HELP)
            return
        name, rest = words[0], words[1:]
        if name not in SUBCOMMANDS:
            raise UsageError(f"%agent: unknown subcommand {name!r}; one of: {', '.join(SUBCOMMANDS)}")
        agent = self.kernel_agent
        if name in ("mode", "model", "allow", "deny") and not rest:
            raise UsageError(f"%agent {name} needs a value, e.g. %agent {name} {_EXAMPLES[name]}")
        if name == "mode":
            if rest[0] not in MODES:
                raise UsageError(f"%agent mode: {rest[0]!r} is not a mode; one of: {', '.join(MODES)}")
            self.mode = rest[0]
            agent.print_line(f"mode: {self.mode}")
        elif name == "model":
            self.model = rest[0]
            agent.print_line(f"model: {self.model}")
        elif name in ("allow", "deny"):
            rules = split_rules([" ".join(rest)])
            target: list[str] = list(getattr(self, name))
            setattr(self, name, target + [r for r in rules if r not in target])
            agent.print_line(f"{name}: {', '.join(getattr(self, name))}")
        elif name == "status":
            agent.show_status()
        elif name == "reset":
            agent.reset()
            agent.print_line("conversation reset")
        elif name == "history":
            agent.show_history()
        elif name == "tools":
            agent.show_tools()
        elif name == "undo":
            agent.undo()


_EXAMPLES = {"mode": "acceptEdits", "model": "claude-sonnet-4-5", "allow": "'Edit(src/**)'", "deny": "Bash"}


def load(ipython: Any) -> None:
    magics = AgentMagics(shell=ipython, config=ipython.config)
    ipython.register_magics(magics)
    ipython.configurables.append(magics)
    from .runtime import track_user_tools

    track_user_tools(ipython, magics)


def unload(ipython: Any) -> None:
    from .runtime import untrack_user_tools

    untrack_user_tools(ipython)
    for magics in [c for c in ipython.configurables if isinstance(c, AgentMagics)]:
        if magics._agent is not None:
            magics._agent.close()
        ipython.configurables.remove(magics)
