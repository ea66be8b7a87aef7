"""What a call's rules come to beside the policy: a pre-tool hook's verdict over the policy's decision (a hook
can deny, never lift a protection), what "Always allow" would add, and what would let an asked call run."""

from __future__ import annotations

import dataclasses

from ..permissions.policy import Allow, Ask, CallFacts, Decision, Deny, Mode, PermissionPolicy, Rule, RuleKind
from ..permissions.rule_glob import escape_pattern
from .hooks import PreResult


def with_hook(verdict: PreResult, decision: Decision) -> Decision:
    """Hooks can deny, never lift a protection. A hook's Deny beats everything; a hook's Ask turns an allow into a
    question; a hook's Allow skips only the question the mode asks (as an allow rule does) — never a deny rule,
    an ask rule, a protected path, plan mode, or a tool's own question (a credential, Bash without its sandbox),
    which is asked after this. A Rewrite is applied before the policy is asked; what it says `then` is judged
    here like a verdict."""
    if (
        isinstance(verdict, Deny)
        or (isinstance(verdict, Ask) and isinstance(decision, Allow))
        or (isinstance(verdict, Allow) and isinstance(decision, Ask) and decision.by == "mode")
    ):
        return verdict
    return decision


def what_would_allow(
    policy: PermissionPolicy, facts: CallFacts, verdict: PreResult, rule: Rule
) -> tuple[Rule | None, Mode | None]:
    """The suggested rule if adding it would allow this call, and the least permissive mode that would —
    found by asking the policy itself, so a suggestion is never one that would still ask or refuse."""
    with_rule = dataclasses.replace(policy, allow=[*policy.allow, rule])
    rule_works = isinstance(with_hook(verdict, with_rule.decide(facts)), Allow)
    mode_works: Mode | None = None
    for mode in ("acceptEdits", "bypassPermissions"):
        if mode != policy.mode and isinstance(
            with_hook(verdict, dataclasses.replace(policy, mode=mode).decide(facts)), Allow
        ):
            mode_works = mode
            break
    return (rule if rule_works else None), mode_works


def suggest_rule(tool: str, subject: str | None, kind: RuleKind) -> Rule:
    """What "Always allow" adds, never wider than what was approved.

    For a shell tool: the exact command, wildcards escaped (`Bash(ls && cat x)` allows that line and nothing
    else, not `ls && curl … | sh`; `Bash(git status --short)` does not allow `git push --force`). For a web
    tool: its domain (`WebFetch(domain:example.com)`). For other tools: the tool, for this session (protected
    paths still ask; deny and ask rules still apply).
    """
    if kind == "command":
        return Rule(tool, escape_pattern((subject or "").strip()))
    if subject is not None and subject.startswith("domain:"):
        return Rule(tool, escape_pattern(subject))
    return Rule(tool)
