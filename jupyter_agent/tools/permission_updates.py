"""A PermissionRequest hook's `updatedPermissions` (Claude Code's permission update entries), read under this
package's rule that a hook can deny and never lift a protection.

Only `addRules` is applied, and a rule it adds has the power of the same rule in a settings file: an allow rule
answers only what the mode would ask (never a deny rule, an ask rule, a protected path or a tool's own question).
- `behavior: allow`: as "Always allow" — for the session (`destination` `session`, `cliArg`), or written to the
  project's `.claude/settings.local.json` (`localSettings`, as "Always allow in this project"). A hook does not
  write your user settings or the project's shared file (`userSettings`, `projectSettings`): the rule is kept
  for the session and a line says so.
- `behavior: deny` / `ask`: join the run's rules at once, for the rest of the run.
- `setMode`, `addDirectories`, `removeDirectories`, `removeRules`, `replaceRules` would widen or reshape what
  you set: not applied, one line each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..base.json_values import is_array, is_object
from ..permissions.policy import Rule

Behavior = Literal["allow", "deny", "ask"]
BEHAVIORS: tuple[Behavior, ...] = ("allow", "deny", "ask")
SESSION_DESTINATIONS = frozenset({"session", "cliArg"})


@dataclass(frozen=True, kw_only=True)
class RuleUpdate:
    """One rule a hook adds: its behaviour, and whether it goes to the project's settings.local.json."""

    rule: Rule
    behavior: Behavior
    in_project: bool = False


def read_updates(value: object) -> tuple[tuple[RuleUpdate, ...], tuple[str, ...]]:
    """The rules of `updatedPermissions` that apply, and one line per entry (or part) that does not."""
    if value is None:
        return (), ()
    if not is_array(value):
        return (), (f"updatedPermissions: expected a list, got {type(value).__name__}; not applied",)
    kept: list[RuleUpdate] = []
    notes: list[str] = []
    for index, entry in enumerate(value):
        where = f"updatedPermissions[{index}]"
        kind = entry.get("type") if is_object(entry) else None
        if not is_object(entry) or kind != "addRules":
            notes.append(
                f"{where}: {kind or 'entry'} not applied (a hook may only add rules; it never widens the mode, "
                "the directories or the rules you set)"
            )
            continue
        behavior, destination = entry.get("behavior"), entry.get("destination", "session")
        if behavior not in BEHAVIORS:
            notes.append(f"{where}: behavior must be allow, deny or ask; not applied")
            continue
        chosen: Behavior = behavior
        in_project = chosen == "allow" and destination == "localSettings"
        if chosen == "allow" and destination not in (*SESSION_DESTINATIONS, "localSettings"):
            notes.append(
                f"{where}: {destination} is not written by a hook; its allow rules are kept for this session"
            )
        rules = entry.get("rules")
        for item in rules if is_array(rules) else []:
            rule = _rule(item)
            if isinstance(rule, str):
                notes.append(f"{where}: {rule}; not applied")
            else:
                kept.append(RuleUpdate(rule=rule, behavior=chosen, in_project=in_project))
    return tuple(kept), tuple(notes)


def _rule(item: object) -> Rule | str:
    """`{"toolName": "Bash", "ruleContent": "npm test"}` → `Bash(npm test)`, or why it is not a rule."""
    tool = item.get("toolName") if is_object(item) else None
    if not isinstance(tool, str) or not tool:
        return "a rule needs a toolName"
    content = item.get("ruleContent") if is_object(item) else None
    text = f"{tool}({content})" if isinstance(content, str) and content else tool
    try:
        return Rule.parse(text)
    except ValueError as exc:
        return f"{text}: {exc}"
