"""PermissionRequest and Notification: the hooks told that a call is about to ask the user, or that a question
waits for them.

PermissionRequest may answer for the user (`hookSpecificOutput.decision.behavior` `allow` / `deny`, exit code 2
denies), within this package's rule: a hook can deny, never lift a protection — its `allow` answers only the
question the mode asks; an ask rule, a protected path, a look at a credential or Bash without its sandbox still
ask the user. When no hook answers, Notification (`permission_prompt`) is fired as the question is shown.

With an `allow` it acts on, the hook's `updatedInput` replaces the call's input — the Dispatcher validates it and
asks the policy again, as for PreToolUse's `updatedInput`: the new input runs only if the hook's allow would let
it run too (a deny rule, ask rule, protected path or the tool's own question refuses it, naming why) — and its
`updatedPermissions` add rules (`permission_updates.py`). An allow the mode's rules do not let a hook give
applies neither. `interrupt: true` with a deny stops the agent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..base.json_values import is_object
from ..permissions.policy import Ask, Deny, Rule
from .hook_payloads import claude_tool_input
from .hooks import Hooks
from .permission_updates import RuleUpdate, read_updates
from .scope import RuleGranted, RunScope

#: The tools whose call waits for the user's answer to a question (not an approval).
QUESTION_TOOLS = frozenset({"AskUserQuestion"})


def _suggestions(rule: Rule) -> list[dict[str, Any]]:
    """What "always allow" would add, as Claude Code's `permission_suggestions` say it."""
    value: dict[str, Any] = {"toolName": rule.tool}
    if rule.pattern is not None:
        value["ruleContent"] = rule.pattern
    return [{"type": "addRules", "rules": [value], "behavior": "allow", "destination": "session"}]


@dataclass(frozen=True, kw_only=True)
class HookAllowed:
    """A PermissionRequest hook's `allow` this package acts on: the input to run instead (None: the call's own)
    and the rules it adds."""

    updated_input: dict[str, Any] | None = None
    updates: tuple[RuleUpdate, ...] = ()


async def permission_answer(
    hooks: Hooks, *, tool: str, tool_input: dict[str, Any], rule: Rule, asked: Ask, sensitive: bool, cwd: str
) -> HookAllowed | Deny | None:
    """The PermissionRequest hooks' answer to the question about to be asked (`sensitive`: the tool's own
    question, which no hook lifts), or None to ask the user (after Notification)."""
    if not hooks.events:
        return None
    fields = {
        "tool_name": tool,
        "tool_input": claude_tool_input(tool, tool_input, cwd),
        "permission_suggestions": _suggestions(rule),
    }
    decision = (await hooks.run_event("PermissionRequest", fields, tool)).permission
    if decision.get("interrupt") is True:
        hooks.halted.append(str(decision.get("message") or "a PermissionRequest hook stopped the agent"))
    if decision.get("behavior") == "deny":
        message = decision.get("message")
        said = (
            message if isinstance(message, str) and message.strip() else "a PermissionRequest hook denied it"
        )
        return Deny(message=f"denied by a PermissionRequest hook: {said}")  # masked where it is sent or shown
    if decision.get("behavior") == "allow" and asked.by == "mode" and not sensitive:
        updated = decision.get("updatedInput")
        return HookAllowed(
            updated_input=dict(updated) if is_object(updated) else None,
            updates=read_updates(decision.get("updatedPermissions"))[0],
        )
    await notify(hooks, "permission_prompt", f"Claude needs your permission to use {tool}")
    return None


def add_hook_rules(run: RunScope, updates: tuple[RuleUpdate, ...]) -> None:
    """The rules a hook's allow adds: an allow rule as "Always allow" (kept by the session, or written to the
    project's settings.local.json), a deny or ask rule to the run's rules at once."""
    for update in updates:
        if update.behavior == "allow":
            run.record(RuleGranted(update.rule, in_project=update.in_project))
            continue
        scope: RunScope | None = run  # a sub-agent's hook narrows the rest of the whole run, as a deny should
        while scope is not None:
            rules = scope.policy.deny if update.behavior == "deny" else scope.policy.ask
            rules.extend([update.rule] if update.rule not in rules else [])
            scope = scope.parent


async def notify(hooks: Hooks, kind: str, message: str) -> None:
    """Notification (the matcher reads its `notification_type`): its hooks run; they decide nothing."""
    if hooks.events:
        fields = {"message": message, "title": "Jupyter agent", "notification_type": kind}
        await hooks.run_event("Notification", fields, kind)


async def question_waits(hooks: Hooks, tool: str) -> None:
    """Before a question tool asks the user: Notification (`idle_prompt`, as Claude Code says a wait for input)."""
    if tool in QUESTION_TOOLS:
        await notify(hooks, "idle_prompt", "Claude is waiting for your input")
