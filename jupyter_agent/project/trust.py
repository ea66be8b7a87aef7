"""Whether the user trusts a project's `.claude/` enough to let it run commands (hooks) and widen permissions.

Claude Code asks once per folder ("Do you trust the files in this folder?") and keeps the answer in
`~/.claude.json`; a folder trusted there is trusted here too (it or a folder above it). Otherwise `%agent trust`
records it in `~/.jupyter_agent/trusted_projects.json`. Until then a project's hooks, allow rules,
`defaultMode` and `additionalDirectories` are not applied — a cloned repository could otherwise run commands
on the first tool call — while its deny and ask rules, which only restrict, always are.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..base.confined import read_confined, write_confined
from ..base.errors import ToolError
from ..base.json_values import is_array, is_object

OURS = Path(".jupyter_agent") / "trusted_projects.json"
CLAUDE_CODE = Path(".claude.json")


def read_home_json(path: Path, home: Path) -> object:
    """The JSON in a file of your home (read under `base.confined`: it may lead only within your home)."""
    try:
        return json.loads(read_confined(path, (home,)).decode("utf-8-sig"))
    except (OSError, ToolError, UnicodeDecodeError, json.JSONDecodeError):
        return None


def _ours(home: Path) -> list[str]:
    data = read_home_json(home / OURS, home)
    listed = data.get("trusted") if is_object(data) else None
    return [str(p) for p in listed if isinstance(p, str)] if is_array(listed) else []


def trusted_by(project_dir: Path, home: Path) -> str | None:
    """Who trusts the project: "Claude Code" or "%agent trust"; None when nobody does."""
    folders = {str(project_dir), *(str(p) for p in project_dir.parents)}
    data = read_home_json(home / CLAUDE_CODE, home)
    projects = data.get("projects") if is_object(data) else None
    if is_object(projects):
        for folder, facts in projects.items():
            if (
                folder.rstrip("/") in folders
                and is_object(facts)
                and facts.get("hasTrustDialogAccepted") is True
            ):
                return "Claude Code"
    if any(folder.rstrip("/") in folders for folder in _ours(home)):
        return "%agent trust"
    return None


def trust(project_dir: Path, home: Path) -> Path:
    """Record that the user trusts `project_dir`; the file written."""
    path = home / OURS
    known = _ours(home)
    if str(project_dir) not in known:
        text = json.dumps({"trusted": [*known, str(project_dir)]}, indent=2) + "\n"
        write_confined(path, text.encode("utf-8"), (home,))
    return path
