"""The tools the package ships: those every session offers, and those a session opts into.

A new built-in tool is added to `builtin_tools()`; one that should only appear on request (it runs
commands, reaches the network) is an `OptInTool` row in `OPT_IN_TOOLS`: it joins the pool when its
setting is true or an allow rule names it (`--allow Bash`, `%agent allow Bash(git status*)`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..permissions.policy import Rule
from ..tools.core import AnyTool


def builtin_tools() -> list[AnyTool]:
    """Every session's tools: files, read-only git, notebooks, the kernel, and the agent's own workflow
    (TodoWrite, AskUserQuestion, ExitPlanMode, Task)."""
    from .files import file_tools
    from .git import GitTool
    from .kernel import kernel_tools
    from .notebook import notebook_tools
    from .verify import VerifyNotebook
    from .workflow import workflow_tools

    return [*file_tools(), GitTool(), *notebook_tools(), VerifyNotebook(), *kernel_tools(), *workflow_tools()]


@dataclass(frozen=True, kw_only=True)
class OptInOptions:
    """What the settings say about how an opt-in tool is made (the same tool, configured)."""

    #: Variables Bash's environment keeps although they look like credentials (`bash_keep_env`).
    bash_keep_env: tuple[str, ...] = ()
    #: WebFetch answers its prompt with the small model (`web_fetch_extract`); False: the page goes to the model.
    web_fetch_extract: bool = True


def _bash(options: OptInOptions) -> list[AnyTool]:
    from .jobs import BashOutput, KillShell
    from .shell import bash_tool

    return [bash_tool(keep_env=options.bash_keep_env), BashOutput(), KillShell()]


def _web_fetch(options: OptInOptions) -> list[AnyTool]:
    from .web import WebFetch

    return [WebFetch(extract=options.web_fetch_extract)]


def _web_search(options: OptInOptions) -> list[AnyTool]:
    from .web.search import web_search_tools

    return web_search_tools()


@dataclass(frozen=True, kw_only=True)
class OptInTool:
    """A tool offered only when asked for; `source` is its name in the tool pool (`%agent tools` shows it)."""

    name: str
    #: The boolean setting (an `AgentSettings` trait) that turns it on for every run.
    setting: str
    build: Callable[[OptInOptions], list[AnyTool]]

    def make(self, options: OptInOptions | None = None) -> list[AnyTool]:
        """Its tools, configured by `options` (the defaults when None: the reference pages, the tests)."""
        return self.build(options or OptInOptions())

    @property
    def source(self) -> str:
        return self.name.lower()

    def wanted(self, enabled: bool, allow: Iterable[Rule]) -> bool:
        """On when its setting says so or an allow rule names the tool."""
        return enabled or any(rule.tool == self.name for rule in allow)


OPT_IN_TOOLS: tuple[OptInTool, ...] = (
    OptInTool(name="Bash", setting="enable_bash", build=_bash),
    OptInTool(name="WebFetch", setting="enable_web_fetch", build=_web_fetch),
    OptInTool(name="WebSearch", setting="enable_web_search", build=_web_search),
)
