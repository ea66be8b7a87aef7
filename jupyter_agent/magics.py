"""`%%agent` and `%agent …`: thin — parse the line, hand off to the kernel's agent (host/kernel_agent.py).

The flags come from `host.options.RUN_FLAGS`, the subcommands from `host.commands.SUBCOMMANDS`; both the
parser and `%agent help` are built from those declarations.
"""

from __future__ import annotations

import atexit
import difflib
import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments

from .host.options import RUN_FLAGS, RunOptions, run_options
from .permissions.rule_names import RuleNameError
from .settings import AgentSettings

if TYPE_CHECKING:
    from .host.kernel_agent import KernelAgent
    from .watch.watcher import CellRun, KernelWatcher

F = TypeVar("F", bound=Callable[..., Any])


def _run_flags(fn: F) -> F:
    """The `@argument` decorators of `%%agent`, one per `RUN_FLAGS` row (applied bottom-up, so reversed).

    IPython's decorators are untyped; each returns the function it was given (with the parser attached).
    """
    decorators: list[Callable[[F], F]] = [
        argument("words", nargs="*", help="as a line magic: a subcommand (see %agent help)"),
        *(argument(flag.flag, **flag.argparse_kwargs()) for flag in reversed(RUN_FLAGS)),
        magic_arguments(),
    ]
    for decorate in decorators:
        fn = decorate(fn)
    return fn


def parse_run_line(parser: Any, line: str) -> tuple[RunOptions, list[str]]:
    """`%%agent` options → `RunOptions` and any stray words; mistakes are UsageErrors naming `%%agent`.

    The line is split as a shell would (IPython's own splitting keeps the quotes): `--allow
    "Edit(src/**),Bash(git status*)"`, the form `%agent help` shows, is the rule list itself.
    """
    try:
        words = shlex.split(line)
    except ValueError as exc:
        raise UsageError(f"%%agent: {exc}") from None
    _check_flags(words)
    try:
        parsed = parser.parse_args(words)
    except UsageError as exc:
        raise UsageError(f"%%agent: {exc}") from None
    try:
        return run_options(parsed), list(parsed.words)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _check_flags(words: list[str]) -> None:
    known = [flag.flag for flag in RUN_FLAGS]
    for word in words:
        name = word.split("=", 1)[0]
        if name.startswith("-") and not name.lstrip("-").isdigit() and name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f"; did you mean {close[0]}?" if close else f"; the options are {', '.join(known)}"
            raise UsageError(f"%%agent: unknown option {name!r}{hint} (%agent help lists them)")


def _parser(magics: AgentMagics) -> Any:
    """The argument parser `magic_arguments` attached to the magic."""
    return getattr(magics.agent_magic, "parser")  # noqa: B009 (set at runtime, unknown to the type checker)


@magics_class
class AgentMagics(Magics, AgentSettings):
    """The `%%agent` cell magic and the `%agent` line magic; settings are this class's traitlets."""

    def __init__(self, shell: Any = None, **kwargs: Any) -> None:
        super().__init__(shell=shell, **kwargs)
        self._agent: KernelAgent | None = None
        self.watcher: KernelWatcher | None = None
        #: What ends the session (SessionEnd) at the kernel's shutdown; unregistered at unload.
        self.at_exit: Callable[[], None] | None = None

    @property
    def kernel_agent(self) -> KernelAgent:
        if self._agent is None:
            from .host.kernel_agent import KernelAgent

            self._agent = KernelAgent(shell=self.shell, settings=self, watcher=self.watcher)
        return self._agent

    @_run_flags
    @line_cell_magic("agent")  # pyright: ignore[reportUntypedFunctionDecorator]
    def agent_magic(self, line: str, cell: str | None = None) -> None:
        """Ask the agent (cell body) or manage it (`%agent help`)."""
        if cell is not None or line.split()[:1] not in ([], ["help"]):
            from ._preload import finish_preload

            finish_preload()  # the agent's imports: never from two threads at once (`help` needs none)
        if cell is None:
            self._subcommand(line)
            return
        options, words = parse_run_line(_parser(self), line)
        if words:
            raise UsageError(
                f"%%agent takes options only, not {' '.join(words)!r}; the request is the cell body"
            )
        if not cell.strip():
            raise UsageError("%%agent needs a request in the cell body, e.g. 'Explain the last error'")
        from .host.configure import SettingError

        try:
            self.kernel_agent.run_cell(cell.strip(), options)
        except (RuleNameError, SettingError) as exc:
            raise UsageError(str(exc)) from None

    def _subcommand(self, line: str) -> None:
        from .host.commands import CommandError, run_subcommand
        from .host.review_commands import ReviewUsageError

        try:
            words = shlex.split(line)
        except ValueError:  # an apostrophe in a one-line request ("why isn't it loaded?")
            words = line.split()
        try:
            shown = run_subcommand(self.kernel_agent, words, line)
        except (CommandError, ReviewUsageError, RuleNameError) as exc:
            raise UsageError(str(exc)) from None
        if isinstance(shown, str):
            from .ui.gate import say

            say(shown)  # masked there: e.g. an MCP server's error with its command line
        elif shown is not None:
            from .ui.publish import DisplayPublisher, TerminalPublisher

            in_kernel = self.kernel_agent.kernel is not None
            (DisplayPublisher() if in_kernel else TerminalPublisher()).show(shown.bundle(), final=True)


def keep_question_marks(lines: list[str]) -> list[str]:
    """`%agent why is df empty?` is a request: IPython would read the trailing `?` as `%pinfo empty`.

    An input transformer that runs before IPython's help syntax turns such a one-line `%agent` cell into
    the magic call it means.
    """
    text = "".join(lines).strip()
    if "\n" in text or not text.startswith("%agent ") or not text.endswith("?"):
        return lines
    return [f"get_ipython().run_line_magic('agent', {text.removeprefix('%agent ').strip()!r})\n"]


def load(ipython: Any) -> None:
    from .watch.watcher import KernelWatcher

    magics = AgentMagics(shell=ipython, config=ipython.config)
    ipython.register_magics(magics)
    ipython.configurables.append(magics)
    from .host.user_tools import track_user_tools

    track_user_tools(ipython, magics)
    if keep_question_marks not in ipython.input_transformers_cleanup:
        ipython.input_transformers_cleanup.append(keep_question_marks)

    def offer_fix(cell: CellRun) -> None:
        if magics.fix_button and cell.error is not None:
            from .ui.fix_button import show_fix_button

            show_fix_button(cell.error)

    magics.watcher = KernelWatcher(ipython, on_error=offer_fix).start()
    magics.kernel_agent.project_notices()  # a malformed .claude/settings.json is one line, never a failed load
    magics.kernel_agent.greet_the_page()
    from .host.session_end import end_at_exit

    magics.at_exit = end_at_exit(magics.kernel_agent.close)


def unload(ipython: Any) -> None:
    from .host.user_tools import untrack_user_tools

    untrack_user_tools(ipython)
    if keep_question_marks in ipython.input_transformers_cleanup:
        ipython.input_transformers_cleanup.remove(keep_question_marks)
    for magics in [c for c in ipython.configurables if isinstance(c, AgentMagics)]:
        if magics.watcher is not None:
            magics.watcher.stop()
        if magics.at_exit is not None:
            atexit.unregister(magics.at_exit)
        if magics._agent is not None:
            magics._agent.close()
        ipython.configurables.remove(magics)
