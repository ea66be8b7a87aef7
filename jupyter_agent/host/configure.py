"""Settings (and one run's options) → the session's config, rules, hooks, tools and roots: the one mapping.

Settings may change between runs (`%config`, `%agent mode`), so the host calls `configure` before every
run and before `%agent status` / `%agent tools`; nothing else writes these parts of a session.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, cast

from ..agent.config import DEFAULT_MODEL, AgentConfig, Provider
from ..agent.thinking import parse_thinking
from ..base.sandbox import Sandbox
from ..tools.builtin import OPT_IN_TOOLS
from ..tools.hooks import PostHook, PreHook
from ..tools.modes import Mode
from ..tools.permissions import DEFAULT_PROTECTED_PATHS, parse_rules
from ..tools.rule_names import check_rule_names
from .options import NO_OPTIONS, RunOptions

if TYPE_CHECKING:
    from ..agent.session import AgentSession
    from ..project import ClaudeProject
    from ..settings import AgentSettings


def agent_config(settings: AgentSettings, options: RunOptions = NO_OPTIONS) -> AgentConfig:
    """How the model is called: settings first, then this run's `--model` / `--max-turns` / `--max-cost` /
    `--think`."""
    return AgentConfig(
        base_url=settings.base_url or None,
        api_key=api_key_from(settings.api_key_env),
        model=options.model or settings.model or DEFAULT_MODEL,
        provider=cast("Provider", settings.provider),
        max_turns=options.max_turns or settings.max_turns,
        max_tokens=settings.max_tokens,
        budget_usd=options.max_cost or settings.budget_usd or None,
        session_budget_usd=settings.session_budget_usd or None,
        thinking=options.think if options.think is not None else parse_thinking(settings.thinking),
        context_compact_fraction=settings.context_compact_fraction or None,
        retry_wait_max=settings.retry_wait_max,
        stall_timeout=settings.model_stall_timeout,
    )


class SettingError(ValueError):
    """A setting that cannot work here; the magic shows it as a UsageError and nothing runs."""


class EndpointSettingError(SettingError):
    """`api_key_env` names a variable that is not set."""


class RootSettingError(SettingError):
    """An allowed root does not exist on this kernel's machine (a tool never creates one)."""


def api_key_from(name: str) -> str | None:
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


def configure(
    session: AgentSession,
    settings: AgentSettings,
    options: RunOptions = NO_OPTIONS,
    project: ClaudeProject | None = None,
) -> None:
    """Bring `session` up to date with the settings, plus this run's options; a Claude Code `project`'s rules,
    mode, roots, hooks and tools come under the settings (project/setup.py says what they mean)."""
    from ..project.setup import project_setup, run_scope
    from ..tools.web.search import WebSearchConfig, configure_web_search

    check_rules(
        session, settings, [*settings.allow, *options.allow, *settings.ask, *settings.deny, *options.deny]
    )
    claude = project_setup(project)
    policy = session.policy
    policy.mode = options.mode or cast("Mode", claude.mode(settings.mode))
    policy.allow = [*claude.allow, *parse_rules([*settings.allow, *options.allow])]
    policy.ask = [*claude.ask, *parse_rules(list(settings.ask))]
    policy.deny = [*claude.deny, *parse_rules([*settings.deny, *options.deny])]
    policy.protected = (*DEFAULT_PROTECTED_PATHS, *settings.protected_paths)
    policy.scope = run_scope(options.allowed_tools, options.scope_owner)
    hooks = claude.hook_lists(session)
    session.hooks.pre_tool_use = [*(cast(PreHook, h) for h in settings.pre_tool_use), *hooks.pre_tool_use]
    session.hooks.post_tool_use = [*(cast(PostHook, h) for h in settings.post_tool_use), *hooks.post_tool_use]
    session.hooks.user_prompt_submit, session.hooks.stop = hooks.user_prompt_submit, hooks.stop
    session.pool.denied = [str(r) for r in policy.deny if r.pattern is None]
    for opt_in in OPT_IN_TOOLS:
        wanted = opt_in.wanted(bool(getattr(settings, opt_in.setting)), policy.allow)
        session.pool.set_source(opt_in.source, opt_in.make() if wanted else [])
    web_search = WebSearchConfig(
        max_uses=settings.web_search_max_uses,
        allowed_domains=tuple(settings.web_search_allowed_domains),
        blocked_domains=tuple(settings.web_search_blocked_domains),
    )
    session.pool.set_source(
        "websearch", configure_web_search(session.pool.sources["websearch"], web_search, policy.ask)
    )
    session.pool.set_source("project", claude.tools)
    sandbox = session.ctx.sandbox
    roots = Sandbox.at(
        sandbox.cwd,
        roots=(*(settings.roots or [sandbox.cwd]), *claude.roots) if claude.roots else tuple(settings.roots),
        limits=sandbox.limits,
        network=settings.bash_network,
        fallback_encoding=settings.fallback_encoding,
    )
    missing = roots.missing_roots()
    if missing:
        raise RootSettingError(
            f"the allowed root {', '.join(repr(str(m)) for m in missing)} does not exist on this kernel's machine "
            f"(the kernel runs in '{roots.cwd}'); tools never create a root or its parents — create it, or set "
            "%config AgentMagics.roots to directories that exist here"
        )
    if roots != sandbox:  # `%config AgentMagics.roots = …` since the last run, including back to []
        session.ctx.sandbox = roots
    session.config = agent_config(settings, options)


def check_rules(session: AgentSession, settings: AgentSettings, rules: list[str]) -> None:
    """RuleNameError for a rule naming no tool of this session (`deny bash`): it would never match."""
    servers: list[str] = []
    if settings.mcp_servers:
        from ..tools.mcp.names import tool_name

        servers = [tool_name(name, "").split("__")[1] for name in settings.mcp_servers]
    known = [*session.pool.merged(), *(opt_in.name for opt_in in OPT_IN_TOOLS)]
    check_rule_names(rules, known, mcp_servers=servers)
