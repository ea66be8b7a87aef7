"""Modes and rules decide whether a call runs, asks, or is refused. Decisions are values, not booleans.

Rules mean what Claude Code's rules mean:
- A call's subject is resolved once (`CallFacts`): a shell command becomes its subcommands (commands.py), a
  path also becomes its symlink-resolved real path, a tool its kind and what it does to paths (read / write).
- `Bash(pattern)`: a deny or ask rule matches when ANY subcommand matches; an allow rule only when ALL do and
  none redirects (`>`, `<`). A command the splitter cannot follow matches no allow rule, and a deny rule when
  any plausible piece matches. A pattern without wildcards also matches the whole command written exactly so
  (that is the form "Always allow" stores).
- Patterns are anchored at both ends: `Bash(git diff)` is that command only; `Bash(git status*)` is a prefix;
  `Bash(npm test:*)` is `npm test` alone or followed by arguments. `\\*`, `\\?` and `\\\\` are literal.
- `Edit(...)` applies to every tool that writes paths, `Read(...)` to every tool that reads them. Deny and
  ask rules match the path as written or its real path; allow rules only the real path, so a symlink in the
  project neither dodges a deny rule nor widens an allow rule.
- `mcp__server` names every tool of that server (as does `mcp__server__*`).
- `Skill(name)` and `Agent(type)` (or its older name `Task(type)`) match the skill or sub-agent a call starts;
  `Skill(review *)` is that skill with or without arguments (`rule_glob`).
- A path pattern that starts with `/` is absolute: it matches the call's absolute path (as written or real),
  wherever the working directory is; the rules of a Claude Code settings file are made absolute this way.
- Protected paths (`.git/**`, `.env*`, shell rc files, `.claude/**`, …) always ask before a write, whatever the
  allow rules, the hooks and the mode, except in bypassPermissions. A hook's Allow, like an allow rule, lifts only
  the mode's question (`Ask.by == "mode"`); ask rules, protected paths and a tool's own question keep asking.
- A scope (a skill's or command's `allowed-tools`) narrows what runs while it is active: a call it does not
  cover is refused. It never allows anything the rules and the mode would not. A skill loaded inside another
  scope narrows within it (`ToolScope.within`): a call runs only when every scope of the stack covers it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from ..base.hosts import canonical_host
from .command_patterns import compile_pattern
from .commands import CommandWords, ParsedCommand, split_command
from .kinds import RuleKind, ToolKind
from .modes import Mode, mode_refusal
from .protected import DEFAULT_PROTECTED_PATHS, protected_match
from .rule_glob import WILDCARDS, glob_regex, literal
from .rule_glob import escape_pattern as escape_pattern

#: What a tool does to the path it names: rules written for `Read` / `Edit` follow this, not the tool's name.
PathAccess = Literal["read", "write"]
ACCESS_RULE_NAMES: dict[str, PathAccess] = {"Read": "read", "Edit": "write"}

#: Tools a scope never refuses: loading another skill (which narrows further, never widens) stays possible.
SCOPE_EXEMPT = frozenset({"Skill"})

#: Claude Code's other names of a tool: `Agent(Explore)` is its rule for a sub-agent, `Task(Explore)` the older
#: one; both name this package's Task tool.
TOOL_ALIASES: dict[str, str] = {"Agent": "Task"}


@dataclass(frozen=True, kw_only=True)
class Allow:
    reason: str = ""


#: What made a call ask: the mode (the one question an allow rule, "Always allow" or a hook's Allow skips), an
#: ask rule, a protected path, a tool's own reason (a look at a credential, Bash without its sandbox) or a hook.
AskSource = Literal["mode", "rule", "protected", "tool", "hook"]


@dataclass(frozen=True, kw_only=True)
class Ask:
    reason: str = ""
    #: Who asks; only the mode's question can be lifted (`by == "mode"`): hooks can deny, never lift a protection.
    by: AskSource = "hook"


@dataclass(frozen=True, kw_only=True)
class Deny:
    message: str


Decision = Allow | Ask | Deny


def never_ask(mode: Mode, decision: Decision) -> Decision:
    """In dontAsk mode a question is a refusal (Claude Code's meaning: what is not pre-approved is denied)."""
    if mode != "dontAsk" or not isinstance(decision, Ask):
        return decision
    return Deny(
        message=f"refused in dontAsk mode, which never asks: {decision.reason}. Only what an allow rule allows "
        "runs in this mode; do not retry it, tell the user which rule would allow it"
    )


_RULE = re.compile(r"^\s*(?P<tool>[A-Za-z0-9_*?\-.]+)\s*(?:\((?P<pattern>.*)\))?\s*$", re.DOTALL)


def _is_server_rule(tool: str) -> bool:
    """`mcp__server`: Claude Code's way to name all of one MCP server's tools."""
    return tool.startswith("mcp__") and len(tool) > 5 and "__" not in tool[5:] and not WILDCARDS.search(tool)


@dataclass(frozen=True, kw_only=True)
class CallFacts:
    """What the policy needs to know about a call, resolved once: who, on what, and what it does."""

    tool: str
    #: The path as written (relative to the working directory when inside it), the command, or None.
    subject: str | None
    rule_kind: RuleKind
    kind: ToolKind
    read_only: bool
    #: What the tool does to the path it names, for `Read(...)` / `Edit(...)` rules and protected paths.
    access: PathAccess | None = None
    #: The path with symlinks resolved, shown like `subject`; None means the same as `subject`.
    real_subject: str | None = None
    #: The absolute path as written and its real path, for absolute patterns (`/home/me/secrets/**`).
    absolute: str | None = None
    real_absolute: str | None = None

    @cached_property
    def command(self) -> ParsedCommand:
        return split_command(self.subject or "")

    def paths(self, *, real_only: bool) -> tuple[str, ...]:
        real = self.real_subject if self.real_subject is not None else self.subject
        found = (real,) if real_only else (self.subject, real)
        return tuple(p.removeprefix("./") for p in found if p is not None)

    def absolute_paths(self, *, real_only: bool) -> tuple[str, ...]:
        real = self.real_absolute if self.real_absolute is not None else self.absolute
        found = (real,) if real_only else (self.absolute, real)
        return tuple(p for p in found if p is not None)


@dataclass(frozen=True)
class Rule:
    """`Read`, `Edit(notebooks/**)`, `Bash(git status*)`, `mcp__srv` — a tool-name glob and an optional pattern."""

    tool: str
    pattern: str | None = None

    @classmethod
    def parse(cls, text: str) -> Rule:
        match = _RULE.match(text)
        if not match:
            raise ValueError(
                f"invalid permission rule {text!r}; write Tool or Tool(pattern), e.g. Edit(src/**) or Bash(git status*)"
            )
        pattern = match.group("pattern")
        pattern = pattern.strip() if pattern is not None else None
        if pattern is not None and pattern.startswith("domain:") and literal(pattern) is not None:
            pattern = "domain:" + canonical_host(
                pattern[7:]
            )  # `127.1`, `localhost`: the address rules compare
        return cls(match.group("tool"), pattern)

    def __str__(self) -> str:
        return self.tool if self.pattern is None else f"{self.tool}({self.pattern})"

    def names(self, tool_name: str, access: PathAccess | None = None) -> bool:
        """Whether the rule is about this tool: by name (anchored glob), by MCP server, or by path access."""
        if glob_regex(TOOL_ALIASES.get(self.tool, self.tool), "command").match(tool_name):
            return True
        if _is_server_rule(self.tool) and tool_name.startswith(self.tool + "__"):
            return True
        return access is not None and ACCESS_RULE_NAMES.get(self.tool) == access

    def matches(self, call: CallFacts) -> bool:
        """The reading deny and ask rules use: any subcommand, the written or the real path."""
        return self._matches(call, allowing=False)

    def allows_alone(self, call: CallFacts) -> bool:
        """The reading of an allow rule on its own: the real path; for a command, the whole command as written
        (a wildcard-free pattern) or every subcommand."""
        return self._matches(call, allowing=True)

    def matches_subcommand(self, sub: CommandWords, *, allowing: bool) -> bool:
        """An allow rule must accept every value the subcommand's holes could take; a deny rule matches when
        some value could match (fail closed both ways)."""
        # A rule without a pattern (or `*`) never gets here: `_matches` and `allows_alone` answer it first.
        pattern = compile_pattern(self.pattern or "*")
        if allowing:
            if not sub.allowable:
                return False
            return pattern.matches(sub.text) if sub.complete else pattern.matches_all(sub.forms()[0][0])
        return any(
            pattern.matches(text) if whole else pattern.could_match(text) for text, whole in sub.forms()
        )

    def _matches(self, call: CallFacts, *, allowing: bool) -> bool:
        if not self.names(call.tool, call.access):
            return False
        if self.pattern is None or self.pattern in ("*", "**"):
            return True
        if call.subject is None:
            return False
        if call.rule_kind == "command":
            command = call.command
            if literal(self.pattern) == command.text:
                return True  # exactly the command that was approved, compound or not
            subs = command.subcommands
            if allowing:
                return _all_allowed(command, lambda sub: self.matches_subcommand(sub, allowing=True))
            return any(self.matches_subcommand(sub, allowing=False) for sub in subs)
        regex = glob_regex(self.pattern, call.rule_kind)
        if call.rule_kind == "path":
            if self.pattern.startswith("/") and call.absolute is not None:
                return any(regex.match(p) for p in call.absolute_paths(real_only=allowing))
            return any(regex.match(p) for p in call.paths(real_only=allowing))
        return bool(regex.match(call.subject))


def _all_allowed(command: ParsedCommand, allowed: Callable[[CommandWords], bool]) -> bool:
    """An allow reading of a command: it parsed, it runs something, and every subcommand is allowed."""
    return command.parsed and bool(command.subcommands) and all(allowed(s) for s in command.subcommands)


def parse_rules(texts: Iterable[str]) -> list[Rule]:
    return [Rule.parse(t) for t in texts]


@dataclass(frozen=True, kw_only=True)
class ToolScope:
    """What may run while a skill or command is active (its `allowed-tools`), and who set it."""

    rules: tuple[Rule, ...]
    #: Named in refusals: `the skill 'summarize'`, `the command /review`.
    owner: str
    #: The scope that was active when this one began (an outer skill's, the command's): this one narrows within
    #: it, never widens it.
    within: ToolScope | None = None

    def stack(self) -> list[ToolScope]:
        """This scope, then the ones it narrows within, innermost first."""
        return [self, *(self.within.stack() if self.within is not None else ())]


@dataclass(kw_only=True)
class PermissionPolicy:
    """Order: deny rules → scope → ask rules → mode → protected paths → allow rules.

    A deny always wins; allow rules only lift an ask, and never the ask of a protected path.
    """

    mode: Mode = "default"
    allow: list[Rule] = field(default_factory=list[Rule])
    ask: list[Rule] = field(default_factory=list[Rule])
    deny: list[Rule] = field(default_factory=list[Rule])
    protected: tuple[str, ...] = DEFAULT_PROTECTED_PATHS
    #: The active skill's or command's `allowed-tools` (None: no narrowing).
    scope: ToolScope | None = None

    def hides(self, tool: str, shown: str, real: str, absolute: tuple[str, str] | None = None) -> bool:
        """Whether a deny rule on reading (`Read(secrets/**)`, or a path rule naming `tool`) covers a file a
        search reached without naming it: Grep and Glob leave such a file out, as Read would refuse it.
        `absolute` is the file's absolute path as reached and its real path, for absolute patterns."""
        facts = CallFacts(
            tool=tool,
            subject=shown,
            rule_kind="path",
            kind="read",
            read_only=True,
            access="read",
            real_subject=real,
            absolute=absolute[0] if absolute else None,
            real_absolute=absolute[1] if absolute else None,
        )
        return any(rule.pattern is not None and rule.matches(facts) for rule in self.deny)

    def decide(self, call: CallFacts) -> Decision:
        return never_ask(self.mode, self._decide(call))

    def _decide(self, call: CallFacts) -> Decision:
        for rule in self.deny:
            if rule.matches(call):
                return Deny(
                    message=f"{call.tool} is denied by the rule {rule}; do not retry it, tell the user"
                )
        refusing = self._refusing_scope(call)
        if refusing is not None:
            allowed = ", ".join(map(str, refusing.rules)) or "no tools"
            inner = self.scope
            nested = (
                f", which {inner.owner} narrows within" if inner is not None and inner is not refusing else ""
            )
            return Deny(
                message=f"{call.tool} is outside the allowed-tools of {refusing.owner} ({allowed}){nested}; while "
                "it is active only those run. Do the work with them, or tell the user what else you need"
            )
        for rule in self.ask:
            if rule.matches(call):
                return Ask(reason=f"the rule {rule} asks for approval", by="rule")
        by_mode = self._by_mode(call)
        if isinstance(by_mode, Deny) or self.mode == "bypassPermissions":
            return by_mode
        guarded = self.protected_pattern(call)
        if guarded is not None:
            return Ask(
                reason=f"{call.subject} is a protected path ({guarded}): writing it can run code or expose "
                "credentials, so it always asks (only bypassPermissions skips this)",
                by="protected",
            )
        if isinstance(by_mode, Ask):
            allowing = self.allowing_rules(call)
            if allowing:
                return Allow(reason=f"allowed by the rule {', '.join(map(str, allowing))}")
        return by_mode

    def allowing_rules(self, call: CallFacts) -> list[Rule]:
        """The allow rules that together allow the call, or [] — a command needs every subcommand allowed by
        some rule (`git status && git diff` by `Bash(git status*)` and `Bash(git diff*)`)."""
        rules = [r for r in self.allow if r.names(call.tool, call.access)]
        for rule in rules:
            if rule.allows_alone(call):
                return [rule]
        if call.rule_kind != "command" or call.subject is None:
            return []
        used: list[Rule] = []

        def allowed(sub: CommandWords) -> bool:
            rule = next((r for r in rules if r.matches_subcommand(sub, allowing=True)), None)
            if rule is not None and rule not in used:
                used.append(rule)
            return rule is not None

        return used if _all_allowed(call.command, allowed) else []

    def _refusing_scope(self, call: CallFacts) -> ToolScope | None:
        """The innermost scope of the stack that does not cover the call, or None when all do."""
        if self.scope is None or call.tool in SCOPE_EXEMPT:
            return None
        return next((scope for scope in self.scope.stack() if not self._covers(scope, call)), None)

    def _covers(self, scope: ToolScope, call: CallFacts) -> bool:
        """Whether the scope's rules, read as allow rules, cover the call (a command: every subcommand)."""
        return bool(PermissionPolicy(allow=list(scope.rules)).allowing_rules(call))

    def protected_pattern(self, call: CallFacts) -> str | None:
        """The protected-path pattern a write matches (written or real path), or None."""
        if call.access != "write":
            return None
        return protected_match(call.paths(real_only=False), self.protected)

    def _by_mode(self, call: CallFacts) -> Decision:
        if call.read_only:
            return Allow(reason="read-only")
        if self.mode == "bypassPermissions":
            return Allow(reason="bypassPermissions mode")
        if self.mode == "plan":
            return Deny(message=mode_refusal(call.tool, self.mode))
        if self.mode == "acceptEdits" and call.kind == "edit":
            return Allow(reason="acceptEdits mode")
        return Ask(reason=f"{self.mode} mode asks before {call.kind} tools", by="mode")

    def add_allow(self, rule: Rule) -> None:
        if rule not in self.allow:
            self.allow.append(rule)
