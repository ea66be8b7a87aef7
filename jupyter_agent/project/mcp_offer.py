"""MCP servers from Claude Code's files, offered as Claude Code offers them.

Where they are (Claude Code's MCP scopes): yours in `~/.claude.json` (`mcpServers`: user scope; under
`projects.<dir>.mcpServers`: local scope, this project only), the project's `.mcp.json` (project scope), and the
enabled plugins' (`.mcp.json` in the plugin, or `mcpServers` of its `plugin.json`), named `plugin:<plugin>:<server>`
as Claude Code names them, `${CLAUDE_PLUGIN_ROOT}` expanded and set. A name in several scopes is taken from the
most specific: local, then project, then user.

A project's servers are other people's commands: one starts only once the user approved it — by name
(`%agent mcp approve NAME`, or `enabledMcpjsonServers`), or all of them (`enableAllProjectMcpServers`) — and
never while it is refused (`disabledMcpjsonServers`, which wins). Claude Code's own answers count (kept in
`~/.claude.json` under the project); a project's settings files count once the project is trusted, as their
hooks do. Yours and the plugins' start without asking: you configured or enabled them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..base.confined import read_confined, write_confined
from ..base.errors import ToolError
from ..base.json_values import is_array, is_object
from .plugins import PLUGIN_ROOT_VARIABLE, Plugin
from .trust import CLAUDE_CODE, read_home_json

MCP_JSON = ".mcp.json"
#: Where `%agent mcp approve` records the user's approvals (beside the trusted projects).
APPROVALS = Path(".jupyter_agent") / "mcp_approvals.json"
PLUGIN_JSON = Path(".claude-plugin") / "plugin.json"
MAX_MCP_JSON_BYTES = 1_000_000

McpScope = Literal["user", "local", "project", "plugin"]
#: "offered": it starts; "waiting": a project's server the user has not approved; "disabled": refused by name.
OfferState = Literal["offered", "waiting", "disabled"]


@dataclass(frozen=True, kw_only=True)
class OfferedServer:
    name: str
    config: Mapping[str, Any]
    scope: McpScope
    #: The file (or plugin) it comes from, as `%agent mcp` names it.
    origin: str
    state: OfferState = "offered"
    #: Why it is not started (`state` other than "offered").
    why: str = ""

    @property
    def source(self) -> str:
        return f"{self.scope}: {self.origin}"


@dataclass(frozen=True, kw_only=True)
class McpApprovals:
    """What the user (or a settings file that counts) said about the project's `.mcp.json` servers."""

    enable_all: bool = False
    enabled: frozenset[str] = frozenset()
    disabled: frozenset[str] = frozenset()
    #: Where the refusal of a name was said (for `%agent mcp`).
    disabled_by: Mapping[str, str] = field(default_factory=dict[str, str])


@dataclass(frozen=True, kw_only=True)
class McpOffer:
    servers: tuple[OfferedServer, ...] = ()
    #: One line per file that cannot be read or server entry that is not an object.
    warnings: tuple[str, ...] = ()

    def started(self) -> dict[str, dict[str, Any]]:
        """The servers that start: name → settings (as `mcp_servers` holds them)."""
        return {s.name: dict(s.config) for s in self.servers if s.state == "offered"}

    def held(self) -> list[OfferedServer]:
        return [s for s in self.servers if s.state != "offered"]

    def named(self, name: str) -> OfferedServer | None:
        return next((s for s in self.servers if s.name == name), None)


def _servers_of(data: object, *, wrapped_only: bool) -> dict[str, object] | None:
    """The `mcpServers` object of a file, or (a plugin's `.mcp.json`) the file itself when it has none."""
    if not is_object(data):
        return None
    inner = data.get("mcpServers")
    if is_object(inner):
        return dict(inner)
    return None if wrapped_only else dict(data)


def _read_json(path: Path, areas: Sequence[Path], warnings: list[str]) -> object:
    try:
        raw = read_confined(path, areas, limit=MAX_MCP_JSON_BYTES)
        return json.loads(raw.decode("utf-8-sig"))
    except FileNotFoundError:
        return None
    except (ToolError, OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        said = exc.message if isinstance(exc, ToolError) else str(exc)
        warnings.append(
            f"jupyter_agent: {path}: cannot be read as JSON ({said}); its MCP servers are not offered"
        )
        return None


def _entries(
    servers: Mapping[str, object] | None, scope: McpScope, origin: str, warnings: list[str]
) -> list[OfferedServer]:
    found: list[OfferedServer] = []
    for name, config in (servers or {}).items():
        if not is_object(config):
            warnings.append(
                f"jupyter_agent: {origin}: mcpServers.{name}: expected an object with command or url; skipped"
            )
            continue
        found.append(OfferedServer(name=name, config=dict(config), scope=scope, origin=origin))
    return found


def _with_plugin_root(value: Any, root: str) -> Any:
    if isinstance(value, str):
        return value.replace(f"${{{PLUGIN_ROOT_VARIABLE}}}", root)
    if is_array(value):
        return [_with_plugin_root(item, root) for item in value]
    if is_object(value):
        return {key: _with_plugin_root(item, root) for key, item in value.items()}
    return value


def plugin_servers(plugin: Plugin, warnings: list[str]) -> list[OfferedServer]:
    """A plugin's servers: its `.mcp.json` (`{"name": {...}}` or `{"mcpServers": {...}}`), or the `mcpServers` of
    its `plugin.json` (an object, or the path of a file holding one), with `${CLAUDE_PLUGIN_ROOT}` expanded."""
    areas = (plugin.root,)
    declared = _read_json(plugin.root / PLUGIN_JSON, areas, warnings)
    inline = declared.get("mcpServers") if is_object(declared) else None
    if isinstance(inline, str):
        path = plugin.root / inline
        servers = _servers_of(_read_json(path, areas, warnings), wrapped_only=False)
    elif is_object(inline):
        servers = dict(inline)
    else:
        path = plugin.root / MCP_JSON
        servers = _servers_of(_read_json(path, areas, warnings), wrapped_only=False)
    root = str(plugin.root)
    made: list[OfferedServer] = []
    for entry in _entries(servers, "plugin", f"plugin {plugin.key}", warnings):
        config = _with_plugin_root(dict(entry.config), root)
        if "command" in config:
            config["env"] = {PLUGIN_ROOT_VARIABLE: root, **(config.get("env") or {})}
        made.append(
            OfferedServer(
                name=f"plugin:{plugin.name}:{entry.name}", config=config, scope="plugin", origin=entry.origin
            )
        )
    return made


def _approval(server: OfferedServer, approvals: McpApprovals) -> OfferedServer:
    from dataclasses import replace

    name = server.name
    if name in approvals.disabled:
        where = approvals.disabled_by.get(name, "disabledMcpjsonServers")
        return replace(server, state="disabled", why=f"not started: disabled by {where}")
    if approvals.enable_all or name in approvals.enabled:
        return server
    return replace(
        server,
        state="waiting",
        why=(
            f"not started: a project's server waits for your approval: %agent mcp approve {name} (or list it in "
            "enabledMcpjsonServers of .claude/settings.local.json)"
        ),
    )


def claude_json_approvals(project: Mapping[str, object]) -> tuple[bool, set[str], set[str]]:
    """Claude Code's own answers for the project (`~/.claude.json` under `projects.<dir>`)."""

    def names(key: str) -> set[str]:
        value = project.get(key)
        return {v for v in value if isinstance(v, str)} if is_array(value) else set()

    return (
        project.get("enableAllProjectMcpServers") is True,
        names("enabledMcpjsonServers"),
        names("disabledMcpjsonServers"),
    )


def _claude_json_project(claude_json: object, project_dir: Path) -> dict[str, object]:
    projects = claude_json.get("projects") if is_object(claude_json) else None
    if not is_object(projects):
        return {}
    for folder, facts in projects.items():
        if folder.rstrip("/") == str(project_dir).rstrip("/") and is_object(facts):
            return dict(facts)
    return {}


def _recorded(home: Path, project_dir: Path) -> set[str]:
    data = read_home_json(home / APPROVALS, home)
    projects = data.get("projects") if is_object(data) else None
    listed = projects.get(str(project_dir)) if is_object(projects) else None
    return {v for v in listed if isinstance(v, str)} if is_array(listed) else set()


def approve(home: Path, project_dir: Path, name: str) -> Path:
    """Record that the user approved the project's server `name`; the file written."""
    path = home / APPROVALS
    data = read_home_json(path, home)
    projects: dict[str, object] = dict(data.get("projects") or {}) if is_object(data) else {}  # pyright: ignore[reportUnknownArgumentType]
    known = sorted(_recorded(home, project_dir) | {name})
    projects[str(project_dir)] = known
    text = json.dumps({"projects": projects}, indent=2) + "\n"
    write_confined(path, text.encode("utf-8"), (home,))
    return path


def mcp_offer(
    *,
    project_dir: Path,
    home: Path,
    areas: Sequence[Path],
    approvals: McpApprovals,
    plugins: Iterable[Plugin] = (),
) -> McpOffer:
    """Every server of Claude Code's files, each with whether it starts and why not."""
    warnings: list[str] = []
    claude_json = read_home_json(home / CLAUDE_CODE, home)
    project = _claude_json_project(claude_json, project_dir)
    enable_all, enabled, disabled = claude_json_approvals(project)
    recorded = _recorded(home, project_dir)
    said = McpApprovals(
        enable_all=approvals.enable_all or enable_all,
        enabled=approvals.enabled | enabled | recorded,
        disabled=approvals.disabled | disabled,
        disabled_by={
            **{n: f"disabledMcpjsonServers in {home / CLAUDE_CODE}" for n in disabled},
            **approvals.disabled_by,
        },
    )
    origin = str(home / CLAUDE_CODE)
    user = _entries(_servers_of(claude_json, wrapped_only=True), "user", origin, warnings)
    local = _entries(_servers_of(project, wrapped_only=True), "local", f"{origin} (this project)", warnings)
    mcp_json = project_dir / MCP_JSON
    shared = _entries(
        _servers_of(_read_json(mcp_json, areas, warnings), wrapped_only=True),
        "project",
        str(mcp_json),
        warnings,
    )
    by_name: dict[str, OfferedServer] = {}
    for server in [*user, *(_approval(s, said) for s in shared), *local]:  # the most specific wins
        by_name[server.name] = server
    plugged = [s for plugin in plugins for s in plugin_servers(plugin, warnings)]
    return McpOffer(servers=(*by_name.values(), *plugged), warnings=tuple(warnings))
