""" "Always allow in this project": the approved call's allow rule written to the project's
`.claude/settings.local.json` (Claude Code's "Yes, and don't ask again"), so it outlives the kernel.

The file is read and written under the package's one confinement rule (`base/confined.py`: the real path inside
the project, no symlink followed) and merged, never replaced: its other keys and rules stay as they were. It is
then read like every settings file (`project/settings_file.py`), so `%agent rules` names it beside the rule, and
the trust rules apply to it as to any project file: its allow rules count once the project is trusted.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..base.confined import read_confined, write_confined
from ..base.errors import ToolError
from ..base.json_values import is_array, is_object

if TYPE_CHECKING:
    from ..tools.scope import RunChange
    from .claude import ClaudeProject

LOCAL_SETTINGS = Path(".claude") / "settings.local.json"


class LocalRuleError(ValueError):
    """The settings file cannot take the rule as it is (not JSON, not an object): it is left untouched."""


def add_local_allow(project_dir: Path, rule: str) -> Path:
    """Add `rule` to `permissions.allow` of the project's settings.local.json (made when missing); the file."""
    path = project_dir / LOCAL_SETTINGS
    try:
        data: Any = json.loads(read_confined(path, (project_dir,)) or b"{}")
    except FileNotFoundError:
        data = {}
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise LocalRuleError(
            f"{path} is not valid JSON ({exc}); fix or remove it to keep rules there"
        ) from exc
    permissions: Any = data.setdefault("permissions", {}) if is_object(data) else None
    allow: Any = permissions.setdefault("allow", []) if is_object(permissions) else None
    if not is_array(allow):
        raise LocalRuleError(f"{path} has no list at permissions.allow; fix it to keep rules there")
    if rule not in allow:
        allow.append(rule)
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        write_confined(path, text.encode("utf-8"), (project_dir,), make_below=project_dir)
    return path


def allow_in_project(project: ClaudeProject | None, rule: str) -> tuple[bool, str]:
    """Write `rule` to the project's settings.local.json: (whether later runs get it from there, the line that
    says what happened). False when no project is read, the file could not take it (both said), or the project
    is not trusted (its allow rules wait for `%agent trust`): the caller then keeps the rule for the session."""
    if project is None:
        return (
            False,
            f"⚠️ {rule}: no Claude Code project is read here (AgentMagics.claude_project); allowed for this session",
        )
    try:
        path = add_local_allow(project.dirs.project_dir, rule)
    except (LocalRuleError, ToolError, OSError) as exc:
        return False, f"⚠️ {rule} was not written to the project ({exc}); allowed for this session"
    if project.settings.trusted is None:
        return False, (
            f"✅ {rule} added to {path} (its allow rules apply once you %agent trust this project; until then, "
            "this session)"
        )
    return True, f"✅ {rule} added to {path}"


def session_rules(
    changes: Sequence[RunChange], project: ClaudeProject | None, say: Callable[[str], None]
) -> list[str]:
    """The rules "Always allow" granted in a run that the session keeps, once each: all but those written to a
    trusted project's file (later runs read them from there); what happened to each written one is `say`-ed."""
    from ..tools.scope import RuleGranted

    kept: list[str] = []
    for change in changes:
        if not isinstance(change, RuleGranted) or str(change.rule) in kept:
            continue
        from_file = False
        if change.in_project:
            from_file, said = allow_in_project(project, str(change.rule))
            say(said)
        if not from_file:
            kept.append(str(change.rule))
    return kept
