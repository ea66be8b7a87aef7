"""Where a notebook's Claude Code files are: `~/.claude/`, and `.claude/` of every directory from the project
directory down to the notebook's, found as the AGENTS.md / CLAUDE.md memory files are (agent/memory.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..agent.memory import memory_dirs
from .definitions import DefinitionDir
from .settings_file import Anchors, Scope

CLAUDE_DIR = ".claude"


@dataclass(frozen=True, kw_only=True)
class ClaudeDirs:
    home: Path
    #: The directories from the project directory (the first) down to the notebook's.
    chain: tuple[Path, ...]
    #: The allowed roots: a project's files may lead (through a link) only into these or the project directory.
    roots: tuple[Path, ...] = ()

    @property
    def project_dir(self) -> Path:
        return self.chain[0]

    @property
    def user(self) -> Path:
        return self.home / CLAUDE_DIR

    @property
    def project_areas(self) -> tuple[Path, ...]:
        """Where a project file's real path must be: the roots and the project directory (`base.confined`)."""
        return (*self.roots, self.project_dir)

    @property
    def user_areas(self) -> tuple[Path, ...]:
        """Where a file of yours under `~/.claude` may lead: `~/.claude` itself, at its real path."""
        return (self.user,)

    def project_dirs(self) -> list[Path]:
        """The chain's `.claude/` directories that exist (the home's is the user's, not a project's)."""
        return [d / CLAUDE_DIR for d in self.chain if d != self.home and (d / CLAUDE_DIR).is_dir()]

    def settings_files(self) -> list[tuple[Path, Scope, Anchors]]:
        """In Claude Code's precedence, lowest first: user, then project files, then local files (each from the
        project directory down, so a deeper one wins)."""

        def anchors(claude_dir: Path) -> Anchors:
            areas = self.user_areas if claude_dir == self.user else self.project_areas
            return Anchors(base=claude_dir.parent, project_dir=self.project_dir, home=self.home, areas=areas)

        projects = self.project_dirs()
        scoped: list[tuple[Path, Scope]] = [
            (self.user / "settings.json", "user"),
            *((d / "settings.json", "project") for d in projects),
            *((d / "settings.local.json", "local") for d in projects),
        ]
        return [(path, scope, anchors(path.parent)) for path, scope in scoped]

    def definition_dirs(self, *, trusted: bool) -> list[DefinitionDir]:
        """Where skills, agents and commands are, most general first: `~/.claude` (yours), then the project's;
        a project's `model:` is used only when it is `trusted`."""
        return [
            DefinitionDir(path=self.user, where="user", areas=self.user_areas),
            *(
                DefinitionDir(path=d, where="project", areas=self.project_areas, models=trusted)
                for d in self.project_dirs()
            ),
        ]


def locate(start: Path, roots: Sequence[Path], home: Path) -> ClaudeDirs:
    return ClaudeDirs(home=home, chain=tuple(memory_dirs(start, roots)), roots=tuple(roots))
