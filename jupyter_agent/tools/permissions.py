"""Modes and rules decide whether a call runs, asks, or is refused. Decisions are values, not booleans."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

Mode = Literal["default", "acceptEdits", "plan", "bypassPermissions"]
MODES: tuple[Mode, ...] = ("default", "acceptEdits", "plan", "bypassPermissions")
RuleKind = Literal["path", "command", "text"]


@dataclass(frozen=True, kw_only=True)
class Allow:
    reason: str = ""


@dataclass(frozen=True, kw_only=True)
class Ask:
    reason: str = ""


@dataclass(frozen=True, kw_only=True)
class Deny:
    message: str


Decision = Allow | Ask | Deny

_RULE = re.compile(r"^\s*(?P<tool>[A-Za-z0-9_*?\-.]+)\s*(?:\((?P<pattern>.*)\))?\s*$", re.DOTALL)
# A command with these is several commands; a prefix rule must not let the rest ride along.
_SHELL_CONTROL = re.compile(r"[;&|`\n<>]|\$\(")


@lru_cache(maxsize=512)
def _glob_regex(pattern: str, kind: RuleKind) -> re.Pattern[str]:
    """`**` crosses `/`; for paths `*` and `?` stay within one segment; for commands `*` matches anything."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i) and kind == "path":
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*" if kind == "path" else ".*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]" if kind == "path" else ".")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


@dataclass(frozen=True)
class Rule:
    """`Read`, `Edit(notebooks/**)`, `Bash(git status*)`, `mcp__srv__*` — a tool-name glob and an optional pattern."""

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
        return cls(match.group("tool"), pattern.strip() if pattern is not None else None)

    def __str__(self) -> str:
        return self.tool if self.pattern is None else f"{self.tool}({self.pattern})"

    def matches(self, tool_name: str, subject: str | None, kind: RuleKind) -> bool:
        if not _glob_regex(self.tool, "command").match(tool_name):
            return False
        if self.pattern is None or self.pattern in ("", "*", "**"):
            return True
        if subject is None:
            return False
        if kind == "command" and _SHELL_CONTROL.search(subject) and not _SHELL_CONTROL.search(self.pattern):
            return False
        if kind == "path" and subject.startswith("./"):
            subject = subject[2:]
        return bool(_glob_regex(self.pattern, kind).match(subject))


def parse_rules(texts: list[str] | tuple[str, ...]) -> list[Rule]:
    return [Rule.parse(t) for t in texts]


@dataclass(frozen=True, kw_only=True)
class CallFacts:
    """What the policy needs to know about a call: who, on what, and what kind of tool it is."""

    tool: str
    subject: str | None
    rule_kind: RuleKind
    kind: str
    read_only: bool


@dataclass(kw_only=True)
class PermissionPolicy:
    """Order: deny rules → ask rules → mode → allow rules. A deny always wins; allow rules only lift an ask."""

    mode: Mode = "default"
    allow: list[Rule] = field(default_factory=list[Rule])
    ask: list[Rule] = field(default_factory=list[Rule])
    deny: list[Rule] = field(default_factory=list[Rule])

    def decide(self, call: CallFacts) -> Decision:
        for rule in self.deny:
            if rule.matches(call.tool, call.subject, call.rule_kind):
                return Deny(
                    message=f"{call.tool} is denied by the rule {rule}; do not retry it, tell the user"
                )
        for rule in self.ask:
            if rule.matches(call.tool, call.subject, call.rule_kind):
                return Ask(reason=f"the rule {rule} asks for approval")
        by_mode = self._by_mode(call)
        if isinstance(by_mode, Ask):
            for rule in self.allow:
                if rule.matches(call.tool, call.subject, call.rule_kind):
                    return Allow(reason=f"allowed by the rule {rule}")
        return by_mode

    def _by_mode(self, call: CallFacts) -> Decision:
        if call.read_only:
            return Allow(reason="read-only")
        if self.mode == "bypassPermissions":
            return Allow(reason="bypassPermissions mode")
        if self.mode == "plan":
            return Deny(
                message=f"{call.tool} is not available in plan mode: only read-only tools run. "
                "Finish the plan and present it; the user switches the mode to carry it out"
            )
        if self.mode == "acceptEdits" and call.kind == "edit":
            return Allow(reason="acceptEdits mode")
        return Ask(reason=f"{self.mode} mode asks before {call.kind} tools")

    def add_allow(self, rule: Rule) -> None:
        if rule not in self.allow:
            self.allow.append(rule)
