"""A project tree on disk for the project tests: a home with `~/.claude/`, a project with `.claude/`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jupyter_agent.project import ClaudeProject


@dataclass
class Tree:
    home: Path
    project: Path

    def write(self, relative: str, content: str | dict[str, Any], *, base: Path | None = None) -> Path:
        path = (base or self.project) / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
        return path

    def settings(self, content: str | dict[str, Any], name: str = "settings.json") -> Path:
        return self.write(f".claude/{name}", content)

    def user_settings(self, content: str | dict[str, Any]) -> Path:
        return self.write(".claude/settings.json", content, base=self.home)

    def claude(self, start: Path | None = None) -> ClaudeProject:
        here = start or self.project
        return ClaudeProject.at(here, [self.project], home=self.home)
