"""Settings (and one run's options) → the next run's configuration, as one value (`RunSetup`): the one mapping.

Settings may change between runs (`%config`, `%agent mode`), so the host calls `configure` before every
run and before `%agent status` / `%agent tools`: it makes the value (`run_setup`, which changes nothing) and
the session applies it (`AgentSession.apply`, the one place these parts of a session are written).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar, cast

from ..agent.config import DEFAULT_MODEL, AgentConfig, Provider
from ..agent.models import Effort
from ..agent.setup import RunSetup
from ..agent.thinking import ThinkingSetting
from ..base.sandbox import BashSandbox, Sandbox
from ..base.unset import first_set
from ..builtin_tools.catalog import OPT_IN_TOOLS, OptInOptions
from ..permissions.modes import Mode
from ..permissions.policy import DEFAULT_PROTECTED_PATHS
from ..permissions.rule_names import check_rule_names
from ..tools.core import AnyTool
from ..tools.hooks import PostHook, PreHook
from .options import NO_OPTIONS, RunOptions

T = TypeVar("T")

if TYPE_CHECKING:
    from ..agent.session import AgentSession
    from ..project import ClaudeProject
    from ..project.setup import ProjectSetup
    from ..settings import AgentSettings


def agent_config(settings: AgentSettings, options: RunOptions = NO_OPTIONS) -> AgentConfig:
    """How the model is called: this run's `--model` / `--max-turns` / `--max-cost` / `--think` over the settings.

    What the user did not say is None on all three sides (options, settings, config: `base.unset`), so a
    value is the first one set.
    """
    return AgentConfig(
        base_url=settings.base_url,
        api_key=api_key_from(settings.api_key_env),
        model=first_set(options.model, settings.model, default=DEFAULT_MODEL),
        provider=cast("Provider", settings.provider),
        max_turns=first_set(options.max_turns, default=settings.max_turns),
        max_tokens=settings.max_tokens,
        budget_usd=first_set(options.max_cost, default=settings.budget_usd),
        session_budget_usd=settings.session_budget_usd,
        thinking=first_set(options.think, default=cast("ThinkingSetting", settings.thinking)),
        effort=first_set(options.effort, default=cast("Effort | None", settings.effort)),
        context_compact_fraction=settings.context_compact_fraction,
        retry_wait_max=settings.retry_wait_max,
        stall_timeout=settings.model_stall_timeout,
        small_model=settings.small_model,
    )


class SettingError(ValueError):
    """A setting that cannot work here; the magic shows it as a UsageError and nothing runs."""


class EndpointSettingError(SettingError):
    """`api_key_env` names a variable that is not set."""


class RootSettingError(SettingError):
    """An allowed root does not exist on this kernel's machine (a tool never creates one)."""


def api_key_from(name: str | None) -> str | None:
    """The key in the environment variable `api_key_env` names; None (the SDK's own lookup) when it names none.

    An unset variable is an error naming it: the SDK would otherwise fall back to $ANTHROPIC_API_KEY and send
    that key to a server it was not meant for.
    """
    if not name:
        return None
    value = os.environ.get(name)
    if not value:
        raise EndpointSettingError(
            f"api_key_env names the environment variable {name}, which is not set; set it in the kernel's "
            "environment (or %env), or clear api_key_env"
        )
    return value


def run_setup(
    settings: AgentSettings,
    options: RunOptions = NO_OPTIONS,
    claude: ProjectSetup | None = None,
    *,
    sandbox: Sandbox,
) -> RunSetup:
    """The next run's configuration as a value: the settings, this run's options, and a Claude Code project's
    rules, mode, roots, hooks and tools under the settings (project/setup.py says what they mean). `sandbox` is
    the session's now (its working directory and limits stay; its roots come from here). Changes nothing."""
    from ..builtin_tools.web.search import (
        WebSearchConfig,
        WebSearchTool,
        configure_web_search,
        web_search_withheld,
    )
    from ..project.anchors import session_rules
    from ..project.setup import ProjectSetup, run_scope

    claude = claude or ProjectSetup()
    cwd = sandbox.cwd
    allow = (*claude.allow, *session_rules([*settings.allow, *options.allow], cwd=cwd, restricting=False))
    ask = (*claude.ask, *session_rules(list(settings.ask), cwd=cwd, restricting=True))
    made = OptInOptions(
        bash_keep_env=tuple(settings.bash_keep_env), web_fetch_extract=settings.web_fetch_extract
    )
    sources: dict[str, tuple[AnyTool, ...]] = {
        opt_in.source: tuple(opt_in.make(made))
        if opt_in.wanted(bool(getattr(settings, opt_in.setting)), allow)
        else ()
        for opt_in in OPT_IN_TOOLS
    }
    web_search = WebSearchConfig(
        max_uses=settings.web_search_max_uses,
        allowed_domains=tuple(settings.web_search_allowed_domains),
        blocked_domains=tuple(settings.web_search_blocked_domains),
    )
    withheld = web_search_withheld(ask, provider=settings.provider) if sources["websearch"] else None
    sources["websearch"] = () if withheld else tuple(configure_web_search(sources["websearch"], web_search))
    sources["project"] = tuple(claude.tools)
    return RunSetup(
        config=dataclasses.replace(agent_config(settings, options), output_style=claude.output_style),
        sandbox=_roots(settings, claude, sandbox),
        mode=first_set(options.mode, default=cast("Mode", claude.mode(settings.mode))),
        allow=allow,
        ask=ask,
        deny=(*claude.deny, *session_rules([*settings.deny, *options.deny], cwd=cwd, restricting=True)),
        protected=(*DEFAULT_PROTECTED_PATHS, *settings.protected_paths),
        scope=run_scope(options.allowed_tools, options.scope_owner),
        pre_tool_use=tuple(cast(PreHook, h) for h in settings.pre_tool_use),
        post_tool_use=tuple(cast(PostHook, h) for h in settings.post_tool_use),
        command_hooks=claude.hooks,
        sources=sources,
        withheld={WebSearchTool.name: withheld} if withheld else {},
    )


def _roots(settings: AgentSettings, claude: ProjectSetup, sandbox: Sandbox) -> Sandbox:
    """The session's sandbox with the settings' roots (and the project's extra ones; every root must exist) and
    the kernel journal's memory budget."""
    roots = Sandbox.at(
        sandbox.cwd,
        roots=(*(settings.roots or [sandbox.cwd]), *claude.roots) if claude.roots else tuple(settings.roots),
        limits=dataclasses.replace(
            sandbox.limits, kernel_undo_bytes=int(settings.kernel_undo_budget_mb * 1024 * 1024)
        ),
        network=settings.bash_network,
        fallback_encoding=settings.fallback_encoding,
        read_roots=claude.skill_dirs,
        bash_sandbox=cast("BashSandbox", settings.bash_sandbox),
        command_env=claude.env,
    )
    missing = roots.missing_roots()
    if missing:
        raise RootSettingError(
            f"the allowed root {', '.join(repr(str(m)) for m in missing)} does not exist on this kernel's machine "
            f"(the kernel runs in '{roots.cwd}'); tools never create a root or its parents — create it, or set "
            "%config AgentMagics.roots to directories that exist here"
        )
    return roots


def configure(
    session: AgentSession,
    settings: AgentSettings,
    options: RunOptions = NO_OPTIONS,
    project: ClaudeProject | None = None,
) -> None:
    """Check the rules the settings and options name, then apply `run_setup` to `session` (between runs)."""
    from ..project.setup import project_setup

    offered = [s.name for s in project.settings.mcp.servers] if project is not None else []
    check_rules(
        session,
        settings,
        [*settings.allow, *options.allow, *settings.ask, *settings.deny, *options.deny],
        mcp_servers=offered,
    )
    setup = run_setup(settings, options, project_setup(project), sandbox=session.ctx.sandbox)
    check_thinking(setup.config)
    session.apply(setup)


def check_thinking(config: AgentConfig) -> None:
    """SettingError when the model cannot take the thinking or effort asked for (before anything is sent)."""
    from ..agent.thinking import ThinkingSettingError

    try:
        config.thinking_plan()
    except ThinkingSettingError as refused:
        raise SettingError(str(refused)) from None


def check_rules(
    session: AgentSession, settings: AgentSettings, rules: list[str], *, mcp_servers: Sequence[str] = ()
) -> None:
    """RuleNameError for a rule naming no tool of this session (`deny bash`): it would never match. The MCP
    servers are the setting's and `mcp_servers` (those of the project's Claude Code files)."""
    servers: list[str] = []
    if settings.mcp_servers or mcp_servers:
        from ..builtin_tools.mcp.names import tool_name

        names = [*settings.mcp_servers, *mcp_servers]
        servers = [tool_name(name, "").split("__")[1] for name in names]
    known = [*session.pool.merged(), *(opt_in.name for opt_in in OPT_IN_TOOLS)]
    check_rule_names(rules, known, mcp_servers=servers)
