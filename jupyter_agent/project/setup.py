"""What a Claude Code project adds to a session's configuration, as values `host/configure.py` maps.

Kept apart from the host so the mapping of settings stays in one place there and this package owns what the
project files mean: rules (made absolute), the mode, extra roots, command hooks, and the tools (`Skill`,
the project's `Task`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..agent.prompt import OutputStyle
from ..permissions.modes import Mode
from ..permissions.policy import Rule, ToolScope, parse_rules
from ..tools.command_hooks import CommandHook
from ..tools.core import AnyTool

if TYPE_CHECKING:
    from .claude import ClaudeProject


@dataclass(frozen=True, kw_only=True)
class ProjectSetup:
    allow: list[Rule] = field(default_factory=list[Rule])
    ask: list[Rule] = field(default_factory=list[Rule])
    deny: list[Rule] = field(default_factory=list[Rule])
    default_mode: Mode | None = None
    roots: tuple[Path, ...] = ()
    hooks: tuple[CommandHook, ...] = ()
    tools: list[AnyTool] = field(default_factory=list[AnyTool])
    #: The skills' folders: Read may read their files (which the Skill tool lists) outside the roots.
    skill_dirs: tuple[Path, ...] = ()
    #: The settings files' `env`, for the commands run for the project (hooks carry it themselves).
    env: tuple[tuple[str, str], ...] = ()
    #: The output style `outputStyle` chose (`output_styles.py`).
    output_style: OutputStyle | None = None

    def mode(self, setting: str) -> str:
        """The package's `mode` setting wins when it is not the default; else the project's `defaultMode`."""
        return self.default_mode if setting == "default" and self.default_mode is not None else setting


def project_setup(project: ClaudeProject | None) -> ProjectSetup:
    """What `project` adds now (its settings re-read if a file changed); nothing without a project."""
    if project is None:
        return ProjectSetup()
    settings = project.settings
    return ProjectSetup(
        allow=parse_rules(r.effective for r in settings.rules("allow")),
        ask=parse_rules(r.effective for r in settings.rules("ask")),
        deny=parse_rules(r.effective for r in settings.rules("deny")),
        default_mode=settings.default_mode,
        roots=tuple(settings.additional_dirs),
        hooks=tuple(settings.hooks),
        tools=project.library.tools,
        skill_dirs=tuple(skill.directory for skill in project.library.skills),
        env=tuple(settings.env.items()),
        output_style=project.library.output_style,
    )


def run_scope(allowed_tools: tuple[str, ...] | None, owner: str) -> ToolScope | None:
    """A command's `allowed-tools` for its run (None: the run is not narrowed)."""
    if allowed_tools is None:
        return None
    return ToolScope(rules=tuple(parse_rules(allowed_tools)), owner=owner or "this run")
