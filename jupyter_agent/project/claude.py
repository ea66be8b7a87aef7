"""A notebook's Claude Code project: its settings (re-read when a file changes) and its skills, sub-agents and
commands (read once per session, so the tool list stays byte-identical; `%agent reset` reads them again).

Precedence is Claude Code's: rules from every file apply together (a deny anywhere wins), and for
`defaultMode` the most specific file wins (local over project over user; a deeper directory over a higher one);
this package's own settings and `%agent allow/deny` come on top. What a project may do before it is trusted
is in `trust.py`.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from ..agent.prompt import OutputStyle
from ..builtin_tools.listing import left_out_warning
from ..builtin_tools.skill import Skill, SkillTool, skill_list
from ..builtin_tools.workflow.task import TaskTool, agent_listing
from ..permissions.modes import Mode
from ..tools.agent_types import AgentType
from ..tools.command_hooks import CommandHook
from ..tools.core import AnyTool
from .definitions import Command, Shadowed, load_agents, load_commands, load_skills
from .locate import ClaudeDirs, locate
from .markdown_file import Problems
from .mcp_offer import APPROVALS, MCP_JSON, McpApprovals, McpOffer, mcp_offer
from .output_styles import chosen_style, load_output_styles
from .plugins import INSTALLED, Plugins, load_plugins
from .settings_file import RuleKind, SettingsFile, SourcedRule, read_settings_file
from .trust import trust, trusted_by


@dataclass(frozen=True, kw_only=True)
class ProjectSettings:
    """The settings files as they are now, and what of them applies."""

    files: tuple[SettingsFile, ...]
    project_dir: Path
    #: "Claude Code" or "%agent trust" when the project is trusted, else None.
    trusted: str | None
    #: The plugins `enabledPlugins` of the applied files turns on (`project/plugins.py`).
    plugins: Plugins = field(default_factory=Plugins)
    #: The MCP servers of Claude Code's files, each with whether it starts (`project/mcp_offer.py`).
    mcp: McpOffer = field(default_factory=McpOffer)

    def _applies(self, settings: SettingsFile) -> bool:
        return settings.scope == "user" or self.trusted is not None

    def rules(self, kind: RuleKind) -> list[SourcedRule]:
        """Deny and ask rules always apply; allow rules of a project only once it is trusted."""
        return [
            rule
            for f in self.files
            if kind != "allow" or self._applies(f)
            for rule in f.rules
            if rule.kind == kind
        ]

    def waiting(self) -> list[SourcedRule]:
        """Allow rules of an untrusted project (not applied)."""
        return [rule for f in self.files if not self._applies(f) for rule in f.rules if rule.kind == "allow"]

    @property
    def default_mode(self) -> Mode | None:
        chosen: Mode | None = None
        for f in self.files:
            if f.default_mode is None or not self._applies(f):
                continue
            if f.default_mode == "bypassPermissions" and f.scope != "user":
                continue  # warned about in `warnings`
            chosen = f.default_mode
        return chosen

    @property
    def additional_dirs(self) -> list[Path]:
        return [d for f in self.files if self._applies(f) for d in f.additional_dirs]

    @property
    def hooks(self) -> list[CommandHook]:
        """The applied files' hooks and the plugins', each run with the files' `env` (a plugin's root over it)."""
        own = [h for f in self.files if self._applies(f) for h in f.hooks]
        hooks = [*own, *(h for plugin in self.plugins.found for h in plugin.hooks)]
        env = tuple(self.env.items())
        return [dataclasses.replace(h, env=(*env, *h.env)) for h in hooks] if env else hooks

    @property
    def env(self) -> dict[str, str]:
        """`env` of the applied files, a more specific file's value over a more general one's. A value whose
        name reads as a credential's is masked from now on, as the kernel's own are."""
        from ..masking import REGISTRY, register

        env = {name: value for f in self.files if self._applies(f) for name, value in f.keys.env}
        for name, value in env.items():
            if REGISTRY.is_secret_name(name):
                register(name, value)
        return env

    @property
    def output_style(self) -> tuple[str, Path] | None:
        """`outputStyle` of the most specific applied file that sets it, and that file."""
        chosen = [(f.keys.output_style, f.path) for f in self.files if self._applies(f)]
        return next(((name, path) for name, path in reversed(chosen) if name), None)

    @property
    def mcp_approvals(self) -> McpApprovals:
        """The `.mcp.json` approvals of the settings files: approvals from the applied ones, refusals from all."""
        applied = [f for f in self.files if self._applies(f)]
        enable_all = next(
            (f.keys.mcp_enable_all for f in reversed(applied) if f.keys.mcp_enable_all is not None), False
        )
        disabled_by = {
            n: f"disabledMcpjsonServers in {f.path}" for f in self.files for n in f.keys.mcp_disabled
        }
        return McpApprovals(
            enable_all=enable_all,
            enabled=frozenset(n for f in applied for n in f.keys.mcp_enabled),
            disabled=frozenset(disabled_by),
            disabled_by=disabled_by,
        )

    @property
    def enabled_plugins(self) -> dict[str, Path]:
        """`name@marketplace` → the settings file that turned it on (a more specific file's `false` turns off)."""
        enabled: dict[str, Path] = {}
        for f in self.files:
            for key, on in f.enabled_plugins if self._applies(f) else ():
                if on:
                    enabled[key] = f.path
                else:
                    enabled.pop(key, None)
        return enabled

    @property
    def warnings(self) -> list[str]:
        lines = [*(w for f in self.files for w in f.warnings), *self.plugins.skipped, *self.mcp.warnings]
        for f in self.files:
            if f.default_mode == "bypassPermissions" and f.scope != "user" and self._applies(f):
                lines.append(
                    f"jupyter_agent: {f.path}: permissions.defaultMode: bypassPermissions is not taken from a "
                    "project's settings (choose it yourself: %agent mode bypassPermissions); ignored"
                )
        waiting = [f for f in self.files if not self._applies(f) and _widens(f)]
        if waiting:
            names = ", ".join(str(f.path) for f in waiting)
            lines.append(
                f"jupyter_agent: {names}: hooks, allow rules, defaultMode, additionalDirectories, enabledPlugins, "
                "env, outputStyle and MCP server approvals are not applied "
                f"until you trust this project ({self.project_dir}): run %agent trust (deny and ask rules apply)"
            )
        return lines


def _widens(f: SettingsFile) -> bool:
    widening = f.hooks or f.additional_dirs or f.default_mode or f.enabled_plugins or f.keys.widens
    return bool(widening or any(r.kind == "allow" for r in f.rules))


@dataclass(frozen=True, kw_only=True)
class ProjectLibrary:
    """Skills, sub-agents and commands, and the tools that offer them (built once, so their bytes never change)."""

    skills: tuple[Skill, ...] = ()
    agents: tuple[AgentType, ...] = ()
    commands: tuple[Command, ...] = ()
    warnings: tuple[str, ...] = ()
    #: Definitions a more specific one of the same name replaces (a project's command over yours).
    shadowed: tuple[Shadowed, ...] = ()
    #: The output style `outputStyle` chose (read once, like the rest: the system prompt stays the same).
    output_style: OutputStyle | None = None

    @cached_property
    def tools(self) -> list[AnyTool]:
        """`Skill` when there are skills, and `Task` with the project's agent types when there are any (it
        replaces the built-in Task in the pool); each lists at most what `builtin_tools.listing` lets it."""
        made: list[AnyTool] = [SkillTool(self.skills)] if self.skills else []
        return [*made, TaskTool(self.agents)] if self.agents else made

    def shadowing(self, kind: str, name: str) -> Shadowed | None:
        """What the definition `name` of `kind` ("skill", "agent", "command") replaces, if anything."""
        return next((s for s in self.shadowed if s.kind == kind and s.name == name), None)


def _left_out(skills: Sequence[Skill], agents: Sequence[AgentType]) -> list[str]:
    lines = [
        left_out_warning(skill_list(skills), "skills"),
        left_out_warning(agent_listing(agents), "sub-agents"),
    ]
    return [line for line in lines if line is not None]


def _signature(paths: Sequence[Path]) -> tuple[tuple[int, int] | None, ...]:
    found: list[tuple[int, int] | None] = []
    for path in paths:
        try:
            stat = path.stat()
        except OSError:
            found.append(None)
            continue
        found.append((stat.st_mtime_ns, stat.st_size))
    return tuple(found)


@dataclass
class ClaudeProject:
    """The session's Claude Code project. `settings` is re-read when a settings file changes; `library` is read
    once (again after `reload`). `take_warnings` gives each warning line once."""

    start: Path
    roots: tuple[Path, ...]
    home: Path
    _dirs: ClaudeDirs | None = None
    _settings: ProjectSettings | None = None
    _seen: tuple[tuple[int, int] | None, ...] = ()
    _library: ProjectLibrary | None = None
    _shown: set[str] = field(default_factory=set[str])

    @classmethod
    def at(cls, start: Path, roots: Sequence[Path], home: Path | None = None) -> ClaudeProject:
        real = Path(os.path.realpath(home if home is not None else Path.home()))
        return cls(start=start, roots=tuple(roots), home=real)

    @property
    def dirs(self) -> ClaudeDirs:
        if self._dirs is None:
            self._dirs = locate(self.start, self.roots, self.home)
        return self._dirs

    def _trust_paths(self) -> list[Path]:
        from .trust import CLAUDE_CODE, OURS

        project = self.dirs.project_dir
        return [
            self.home / CLAUDE_CODE,
            self.home / OURS,
            self.home / APPROVALS,
            self.dirs.user / INSTALLED,
            project / MCP_JSON,
        ]

    @property
    def settings(self) -> ProjectSettings:
        files = self.dirs.settings_files()
        signature = _signature([*(path for path, _, _ in files), *self._trust_paths()])
        if self._settings is None or signature != self._seen:
            read = [read_settings_file(path, scope, anchors) for path, scope, anchors in files]
            settings = ProjectSettings(
                files=tuple(f for f in read if f is not None),
                project_dir=self.dirs.project_dir,
                trusted=trusted_by(self.dirs.project_dir, self.home),
            )
            plugins = load_plugins(
                settings.enabled_plugins,
                claude_dir=self.dirs.user,
                project_dir=self.dirs.project_dir,
                home=self.home,
            )
            offer = mcp_offer(
                project_dir=self.dirs.project_dir,
                home=self.home,
                areas=self.dirs.project_areas,
                approvals=settings.mcp_approvals,
                plugins=plugins.found,
            )
            self._settings = dataclasses.replace(settings, plugins=plugins, mcp=offer)
            self._seen = signature
        return self._settings

    @property
    def library(self) -> ProjectLibrary:
        if self._library is None:
            problems = Problems()
            own = self.dirs.definition_dirs(trusted=self.settings.trusted is not None)
            plugins = [plugin.definitions() for plugin in self.settings.plugins.found]
            where = [own[0], *plugins, *own[1:]]  # a plugin's names are its own (`plugin:name`)
            skills, agents = load_skills(where, problems), load_agents(where, problems)
            commands = load_commands(where, problems)
            trusted = self.settings.trusted is not None
            styles = load_output_styles([d for d in own if d.where == "user" or trusted], problems)
            choice = self.settings.output_style
            said: list[str] = []
            name, source = choice if choice is not None else (None, None)
            style = chosen_style(name, styles, source, said)
            self._library = ProjectLibrary(
                skills=tuple(skills.items),
                agents=tuple(agents.items),
                commands=tuple(commands.items),
                warnings=(*problems.lines, *said, *_left_out(skills.items, agents.items)),
                shadowed=(*skills.shadowed, *agents.shadowed, *commands.shadowed),
                output_style=style,
            )
        return self._library

    def reload(self) -> None:
        """`%agent reset`: the directories, the settings and the library are read again."""
        self._dirs = self._settings = self._library = None
        self._shown.clear()

    def approve_mcp_server(self, name: str) -> str:
        """`%agent mcp approve NAME`: record the user's approval of the project's server `name`."""
        from .mcp_offer import approve

        server = self.settings.mcp.named(name)
        waiting = [s.name for s in self.settings.mcp.servers if s.state == "waiting"]
        if server is None or server.scope != "project":
            listed = ", ".join(waiting) or "none"
            raise KeyError(
                f"no server named '{name}' in {self.dirs.project_dir / MCP_JSON} (waiting: {listed})"
            )
        if server.state == "disabled":
            raise KeyError(
                f"'{name}' is {server.why.removeprefix('not started: ')}; remove it from there first"
            )
        written = approve(self.home, self.dirs.project_dir, name)
        self._settings = None
        return f"approved the MCP server '{name}' of {self.dirs.project_dir} (recorded in {written}); it starts now"

    def trust(self) -> str:
        if self.settings.trusted is not None:
            return f"{self.dirs.project_dir} is already trusted (by {self.settings.trusted})"
        written = trust(self.dirs.project_dir, self.home)
        self._settings = None
        return (
            f"trusted {self.dirs.project_dir} (recorded in {written}): its hooks, allow rules, defaultMode and "
            "additionalDirectories apply from the next run, the `model` of its sub-agents and commands after "
            "%agent reset"
        )

    def take_warnings(self) -> list[str]:
        """The warnings not shown yet (a file that changes can warn again)."""
        lines = [*self.settings.warnings, *self.library.warnings]
        new = [line for line in dict.fromkeys(lines) if line not in self._shown]
        self._shown.update(new)
        return new
