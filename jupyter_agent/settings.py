"""Settings as traitlets: `%config AgentMagics.mode = "acceptEdits"` or `c.AgentMagics.model = …` in
ipython_config.py. Environment variables fill the defaults where that is the convention (ANTHROPIC_MODEL)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any, TypeVar

from traitlets import Any as AnyTrait
from traitlets import Bool, Dict, Enum, Float, Int, List, TraitError, Unicode, default, observe, validate

from .agent.config import (
    DEFAULT_COMPACT_FRACTION,
    DEFAULT_MAX_TOKENS,
    DEFAULT_MAX_TURNS,
    DEFAULT_RETRY_WAIT_MAX,
    DEFAULT_STALL_TIMEOUT,
    PROVIDERS,
    ThinkingSetting,
)
from .agent.models import EFFORTS
from .base.journal_store import DEFAULT_CAP_MB
from .base.sandbox import BASH_SANDBOX_VALUES, DEFAULT_FALLBACK_ENCODING
from .base.unset import unset_if_blank
from .builtin_tools.mcp.config import DEFAULT_CALL_TIMEOUT
from .masking import DEFAULT_SECRET_ENV_PATTERNS, REGISTRY, clip
from .permissions.modes import MODES, modes_help
from .permissions.policy import Rule
from .permissions.rule_names import check_rule_names
from .small_model_settings import SmallModelSettings

T = TypeVar("T")


class SettingError(TraitError, ValueError):
    """A rejected setting value. traitlets undoes a `%config` assignment only on a TraitError: any other error
    left the invalid value in place, and the next run failed on it."""


def _rejecting(check: Callable[[Any, Any], T]) -> Callable[[Any, Any], T]:
    """A validator whose ValueError (with the accepted values and the fix) becomes a SettingError."""

    @functools.wraps(check)
    def checked(self: Any, proposal: Any) -> T:
        try:
            return check(self, proposal)
        except TraitError:
            raise
        except ValueError as exc:
            raise SettingError(str(exc)) from exc

    return checked


class AgentSettings(SmallModelSettings):
    """Everything a user can configure; AgentMagics inherits these, so they live under `AgentMagics.`."""

    model = Unicode(
        None,
        allow_none=True,
        help="Model id; None uses $ANTHROPIC_MODEL, else the package default (a current Sonnet).",
    ).tag(config=True)
    provider = Enum(list(PROVIDERS), PROVIDERS[0], help="Which Anthropic SDK client to use.").tag(config=True)
    base_url = Unicode(
        None,
        allow_none=True,
        help="The Messages API's address for an Anthropic-compatible server (a local model server, a proxy; "
        "see docs/endpoints.md); None uses $ANTHROPIC_BASE_URL, else api.anthropic.com.",
    ).tag(config=True)
    api_key_env = Unicode(
        None,
        allow_none=True,
        help="The name of the environment variable that holds the API key (e.g. 'LITELLM_KEY'); None uses "
        "$ANTHROPIC_API_KEY. The key itself never goes into a setting.",
    ).tag(config=True)
    mode = Enum(list(MODES), MODES[0], help=f"Permission mode. {modes_help()}.").tag(config=True)
    allow = List(Unicode(), help="Permission allow rules, e.g. ['Edit(src/**)', 'Bash(git status*)'].").tag(
        config=True
    )
    ask = List(Unicode(), help="Permission ask rules: always ask for these, whatever the mode.").tag(
        config=True
    )
    deny = List(Unicode(), help="Permission deny rules: never run these.").tag(config=True)
    roots = List(
        Unicode(), help="Directories the file tools may touch; empty means the notebook's directory."
    ).tag(config=True)
    max_turns = Int(DEFAULT_MAX_TURNS, help="Model turns per run before the agent stops.").tag(config=True)
    max_tokens = Int(DEFAULT_MAX_TOKENS, help="max_tokens for each model turn.").tag(config=True)
    budget_usd = Float(
        None,
        allow_none=True,
        help="Stop a run when its cost passes this many USD (None = no cap); --max-cost for one run.",
    ).tag(config=True)
    session_budget_usd = Float(
        None,
        allow_none=True,
        help="Stop runs once this kernel's agent has cost this many USD in all (None = no cap).",
    ).tag(config=True)
    thinking = AnyTrait(
        None,
        allow_none=True,
        help="Thinking: None (the model's default: the 5.x models think adaptively, older ones do not), 'off' "
        "(as far as the model lets), 'adaptive' (its summary shown) or a budget in tokens (16000; on a model that "
        "takes no budget, adaptive at the matching effort); '16000' is read as 16000; --think for one run.",
    ).tag(config=True)
    effort = Enum(
        list(EFFORTS),
        None,
        allow_none=True,
        help="How hard the model works (output_config.effort) on models that take it: "
        f"{', '.join(EFFORTS)}; None = the model's default; --effort for one run.",
    ).tag(config=True)
    context_compact_fraction = Float(
        DEFAULT_COMPACT_FRACTION,
        allow_none=True,
        help="Compact the conversation into a summary when it passes this share of the model's context "
        "window (None = never automatically; %agent compact does it on demand).",
    ).tag(config=True)
    save_sessions = Bool(
        True,
        help="Save every conversation under the Jupyter data dir, for %agent resume / sessions / export.",
    ).tag(config=True)
    enable_bash = Bool(
        False, help="Offer the Bash tool (it still asks unless a rule allows the command)."
    ).tag(config=True)
    enable_web_fetch = Bool(
        True,
        help="Offer the WebFetch tool; it asks before each fetch unless a rule allows the domain, e.g. "
        "WebFetch(domain:docs.python.org). False hides it from the model.",
    ).tag(config=True)
    enable_web_search = Bool(
        False,
        help="Offer WebSearch (Anthropic's server-side web search, billed per search; it cannot ask before a "
        "search, so it is off unless this is True or an allow rule names WebSearch; a deny rule takes it away). Not "
        "offered on Bedrock, which does not run server tools; %agent tools says why.",
    ).tag(config=True)
    web_search_max_uses = Int(
        5,
        help="Web searches per run: the tool's max_uses (at most this many in one request), and once a run has made "
        "this many in all, its later requests go without WebSearch (the request that crosses it can add up to "
        "max_uses - 1 more; the tool's definition stays the same so the prompt cache holds).",
    ).tag(config=True)
    web_search_allowed_domains = List(
        Unicode(), help="Only these domains in web search results, e.g. ['docs.python.org']; empty: any."
    ).tag(config=True)
    web_search_blocked_domains = List(
        Unicode(), help="Never these domains in web search results (not together with the allowed domains)."
    ).tag(config=True)
    claude_project = Bool(
        True,
        help="Read Claude Code's project files: .claude/settings.json and settings.local.json (from the notebook's "
        "directory up to the project directory) and ~/.claude/settings.json (permission rules, hooks), skills, "
        "agents and commands. A project's hooks and allow rules apply once it is trusted (%agent trust).",
    ).tag(config=True)
    mcp_servers = Dict(
        help='MCP servers: {"name": {"command": "...", "args": [...]}} or {"name": {"url": "http://..."}}.'
    ).tag(config=True)
    quiet = Bool(
        False, help="Collapse tool cards and intermediate text; only the final answer stays open."
    ).tag(config=True)
    pre_tool_use = List(AnyTrait(), help="Callables run before each tool call (see docs/hooks.md).").tag(
        config=True
    )
    post_tool_use = List(AnyTrait(), help="Callables run after each tool call (see docs/hooks.md).").tag(
        config=True
    )
    protected_paths = List(
        Unicode(),
        help="Paths that always ask before a write (besides .git/**, .env*, .ssh/**, shell rc files, …), "
        "whatever the allow rules and the mode except bypassPermissions; globs like 'deploy/**'.",
    ).tag(config=True)
    bash_network = Bool(
        False, help="Let Bash commands reach the network (the OS sandbox cuts it off by default)."
    ).tag(config=True)
    bash_keep_env = List(
        Unicode(),
        help="Environment variables Bash keeps although they look like credentials (['GITHUB_TOKEN'] for gh); "
        "their values are still masked as [redacted: NAME] in everything shown, sent and saved.",
    ).tag(config=True)
    bash_sandbox = Enum(
        list(BASH_SANDBOX_VALUES),
        "required",
        help="'required': where Bash cannot run in its OS sandbox (no bubblewrap, it cannot start, not Linux) "
        "every command asks and says 'unsandboxed', even under an allow rule (headless: refused); 'off': allow "
        "rules run it unsandboxed too. %agent status shows the sandbox.",
    ).tag(config=True)
    context = Bool(
        True,
        help="Send each request a short note of what happened in the kernel since the agent last looked "
        "(cells run, errors, changed variables, figures); %agent context shows it.",
    ).tag(config=True)
    fix_button = Bool(
        True, help="Show a 'Fix with agent' button (or a hint to run %agent fix) under each traceback."
    ).tag(config=True)
    fallback_encoding = Unicode(
        DEFAULT_FALLBACK_ENCODING,
        help="How the file tools read a text file that has no byte-order mark or coding declaration and is not "
        "UTF-8 (it is written back in the same encoding), e.g. 'cp1251' or 'latin-1'.",
    ).tag(config=True)
    retry_wait_max = Float(
        DEFAULT_RETRY_WAIT_MAX,
        help="The longest wait (seconds) for a retry the model API asks for with retry-after; the cell counts it "
        "down. A longer ask ends the run at once, saying when to run again.",
    ).tag(config=True)
    model_stall_timeout = Float(
        DEFAULT_STALL_TIMEOUT,
        help="Seconds without a byte from the model API (connecting, or in the middle of an answer) before the "
        "request counts as stalled: it is retried, then reported.",
    ).tag(config=True)
    mcp_timeout = Float(
        DEFAULT_CALL_TIMEOUT,
        help="Seconds an MCP tool call may go without an answer or a progress notification before it is given "
        "up as TIMEOUT (each progress notification restarts the count).",
    ).tag(config=True)
    probe_timeout = Float(
        2.0, help="Seconds to wait for a widget frontend before treating the run as headless."
    ).tag(config=True)
    undo_memory_mb = Float(
        DEFAULT_CAP_MB,
        help="Megabytes of undo records (files before a write, a notebook's changed bytes) kept in memory; past it "
        "the oldest move to this kernel's directory under the Jupyter data dir, and undo reads them back. "
        "%agent reset moves them all there. 0 keeps none in memory.",
    ).tag(config=True)
    kernel_undo_budget_mb = Float(
        help="Memory (MB) the kernel journal may hold so %agent undo can restore variables RunCode and RunCell "
        "changed in place: copies taken before each call, dropped oldest first. Default: 10% of the memory "
        "available when the extension loads, at most 512. An object larger, or one that cannot be copied, is "
        "not copied, and the approval and the result say so. 0 copies nothing (rebound and deleted names are "
        "still restored)."
    ).tag(config=True)

    secret_env_patterns = List(
        Unicode(),
        list(DEFAULT_SECRET_ENV_PATTERNS),
        help="Environment variables whose values are secrets: masked as [redacted: NAME] in everything the model "
        "reads, every display and the saved notebook, and left out of Bash's environment. Shell-style patterns, "
        "case-insensitive; URLs with a password are masked whatever their name.",
    ).tag(config=True)

    @observe("secret_env_patterns")
    def _secret_patterns_changed(self, change: Any) -> None:
        REGISTRY.patterns = tuple(change["new"])

    @default("kernel_undo_budget_mb")
    def _share_of_free_memory(self) -> float:
        from .base.kernel_journal import default_budget_mb  # at the first read, not at import

        return default_budget_mb()

    @validate("kernel_undo_budget_mb")
    @_rejecting
    def _budget_not_negative(self, proposal: Any) -> float:
        if not (value := float(proposal["value"])) >= 0:
            raise ValueError(
                f"kernel_undo_budget_mb is a memory budget in MB: 0 (copy nothing) or more, got {value}"
            )
        return value

    @default("model")
    def _model_from_env(self) -> str | None:
        return os.environ.get("ANTHROPIC_MODEL") or None

    @validate("model", "base_url")
    def _blank_says_nothing(self, proposal: Any) -> str | None:
        return unset_if_blank(proposal["value"])

    @validate("api_key_env")
    @_rejecting
    def _env_name(self, proposal: Any) -> str | None:
        value = unset_if_blank(proposal["value"])
        if value is not None and not _is_env_name(value):
            raise ValueError(
                f"api_key_env is the NAME of an environment variable (like 'LITELLM_KEY'), got {clip(value, 12)!r}; "
                "put the key itself in that variable"
            )
        return value

    @validate("bash_keep_env")
    @_rejecting
    def _env_names(self, proposal: Any) -> list[str]:
        value: list[str] = [str(v).strip() for v in proposal["value"]]
        if bad := [name for name in value if not _is_env_name(name)]:
            raise ValueError(
                f"bash_keep_env lists NAMES of variables (like 'GITHUB_TOKEN'), got {clip(bad[0], 9)!r}"
            )
        return value

    @validate("thinking")
    @_rejecting
    def _thinking_parses(self, proposal: Any) -> ThinkingSetting:
        from .agent.thinking import parse_thinking

        value = proposal["value"]
        if not isinstance(value, str | int) or isinstance(value, bool):
            raise ValueError(f"thinking: {value!r} is not off, adaptive or a budget in tokens (e.g. 8000)")
        return parse_thinking(value)  # raises with what is accepted

    @validate("budget_usd", "session_budget_usd")
    @_rejecting
    def _cap_or_none(self, proposal: Any) -> float | None:
        value = proposal["value"]
        if value is None or value == 0:
            return None
        if not value > 0:
            raise ValueError(
                f"{proposal['trait'].name} is a cap in US dollars: positive, or None for no cap; got {value}"
            )
        return float(value)

    @validate("fallback_encoding")
    @_rejecting
    def _known_encoding(self, proposal: Any) -> str:
        value = str(proposal["value"]).strip()
        try:
            newline = "\n".encode(value)
        except LookupError:
            raise ValueError(
                f"fallback_encoding {value!r} is not an encoding Python knows; e.g. 'cp1252', 'latin-1', 'cp1251'"
            ) from None
        if newline != b"\n":
            raise ValueError(
                f"fallback_encoding {value!r} is not an 8-bit encoding that keeps ASCII as it is; "
                "files in UTF-16 or UTF-32 are recognised by their byte-order mark"
            )
        return value

    @validate("undo_memory_mb")
    @_rejecting
    def _megabytes(self, proposal: Any) -> float:
        value = float(proposal["value"])
        if not value >= 0:
            raise ValueError(f"undo_memory_mb is a number of megabytes, 0 or more, got {value}")
        return value

    @validate("retry_wait_max", "model_stall_timeout", "mcp_timeout")
    @_rejecting
    def _positive_seconds(self, proposal: Any) -> float:
        value = float(proposal["value"])
        if not value > 0:
            raise ValueError(
                f"{proposal['trait'].name} is a number of seconds and must be positive, got {value}"
            )
        return value

    @validate("context_compact_fraction")
    @_rejecting
    def _fraction_in_range(self, proposal: Any) -> float | None:
        value = proposal["value"]
        if value is None or value == 0:
            return None
        if not 0 < value <= 1:
            raise ValueError(f"context_compact_fraction must be between 0 and 1 (None: never), got {value}")
        return float(value)

    @validate("web_search_allowed_domains", "web_search_blocked_domains")
    @_rejecting
    def _one_kind_of_domain_list(self, proposal: Any) -> list[str]:
        value: list[str] = [str(v).strip() for v in proposal["value"]]
        other = (
            "web_search_blocked_domains"
            if proposal["trait"].name.endswith("allowed_domains")
            else ("web_search_allowed_domains")
        )
        if value and getattr(self, other):
            raise ValueError(
                f"web search takes allowed or blocked domains, not both (the API refuses the pair); clear {other} first"
            )
        return value

    @validate("web_search_max_uses")
    @_rejecting
    def _at_least_one_search(self, proposal: Any) -> int:
        value = int(proposal["value"])
        if value < 1:
            raise ValueError(
                f"web_search_max_uses must be at least 1 (enable_web_search = False turns it off), got {value}"
            )
        return value

    @validate("allow", "ask", "deny")
    @_rejecting
    def _rules_parse(self, proposal: Any) -> list[str]:
        value: list[str] = list(proposal["value"])
        for text in value:
            Rule.parse(text)  # raises with the fix in the message
        check_rule_names(value, _builtin_tool_names(), case_only=True)  # `bash` for `Bash`, before a run
        return value


def _is_env_name(text: str) -> bool:
    return text.replace("_", "a").isalnum()


def _builtin_tool_names() -> list[str]:
    """User and MCP tools appear later: at this point only a wrong-case builtin name can be told apart."""
    from .builtin_tools.catalog import OPT_IN_TOOLS, builtin_tools

    return [*(t.name for t in builtin_tools()), *(opt_in.name for opt_in in OPT_IN_TOOLS)]
