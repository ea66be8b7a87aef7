"""PermissionRequest and Notification: the hooks told that a call is about to ask the user, or that a question
waits for them.

PermissionRequest may answer for the user (`hookSpecificOutput.decision.behavior` `allow` / `deny`, exit code 2
denies), within this package's rule: a hook can deny, never lift a protection — its `allow` answers only the
question the mode asks; an ask rule, a protected path, a look at a credential or Bash without its sandbox still
ask the user. When no hook answers, Notification (`permission_prompt`) is fired as the question is shown.
"""

from __future__ import annotations

from typing import Any

from ..permissions.policy import Allow, Ask, Deny, Rule
from .hook_payloads import claude_tool_input
from .hooks import Hooks

#: The tools whose call waits for the user's answer to a question (not an approval).
QUESTION_TOOLS = frozenset({"AskUserQuestion"})


def _suggestions(rule: Rule) -> list[dict[str, Any]]:
    """What "always allow" would add, as Claude Code's `permission_suggestions` say it."""
    value: dict[str, Any] = {"toolName": rule.tool}
    if rule.pattern is not None:
        value["ruleContent"] = rule.pattern
    return [{"type": "addRules", "rules": [value], "behavior": "allow", "destination": "session"}]


async def permission_answer(
    hooks: Hooks, *, tool: str, tool_input: dict[str, Any], rule: Rule, asked: Ask, sensitive: bool, cwd: str
) -> Allow | Deny | None:
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
        return Allow(reason="allowed by a PermissionRequest hook")
    await notify(hooks, "permission_prompt", f"Claude needs your permission to use {tool}")
    return None


async def notify(hooks: Hooks, kind: str, message: str) -> None:
    """Notification (the matcher reads its `notification_type`): its hooks run; they decide nothing."""
    if hooks.events:
        fields = {"message": message, "title": "Jupyter agent", "notification_type": kind}
        await hooks.run_event("Notification", fields, kind)


async def question_waits(hooks: Hooks, tool: str) -> None:
    """Before a question tool asks the user: Notification (`idle_prompt`, as Claude Code says a wait for input)."""
    if tool in QUESTION_TOOLS:
        await notify(hooks, "idle_prompt", "Claude is waiting for your input")
