"""Claude Code plugins: the ones `enabledPlugins` (`"name@marketplace": true`) turns on, found where Claude Code
keeps them — its plugin cache (`~/.claude/plugins/installed_plugins.json` names each one's `installPath`) or a
marketplace file of the project (`.claude-plugin/marketplace.json`, a plugin's `source` relative to it).

A plugin's `skills/`, `agents/` and `commands/` are read as a `.claude/` directory's are, named as Claude Code names
them (`plugin-dev:plugin-settings`), its files confined to its own folder; its `hooks/hooks.json` runs with
`${CLAUDE_PLUGIN_ROOT}` expanded and set. `enabledPlugins` of a project's settings counts only once the project is
trusted (`ProjectSettings`), as its hooks and allow rules do. What cannot be used is one line naming the reason.

A plugin's LSP servers (`lspServers` of its `plugin.json` or of its marketplace entry — a `"strict": false` entry
is the whole plugin, as the official directory's language-server plugins are — or its `.lsp.json`) are named in
`%agent plugins` as not used: this package has no LSP client; the plugin's other parts still load.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..base.json_values import is_array, is_object
from ..tools.command_hooks import CommandHook
from .definitions import DefinitionDir
from .settings_file import Anchors, read_hooks_file, read_inline_hooks

#: Where Claude Code records the plugins it installed (under `~/.claude`).
INSTALLED = Path("plugins") / "installed_plugins.json"
#: Where Claude Code records the marketplaces it added (each one's `installLocation`, a copy of its files).
KNOWN_MARKETPLACES = Path("plugins") / "known_marketplaces.json"
MARKETPLACE = Path(".claude-plugin") / "marketplace.json"
PLUGIN_ROOT_VARIABLE = "CLAUDE_PLUGIN_ROOT"
MANIFEST = Path(".claude-plugin") / "plugin.json"


@dataclass(frozen=True, kw_only=True)
class Plugin:
    """An enabled plugin found on disk: where it is, who enabled it, and the hooks it brings."""

    key: str
    name: str
    root: Path
    #: The settings file whose `enabledPlugins` turned it on.
    enabled_by: Path
    hooks: tuple[CommandHook, ...] = ()
    #: The names of the LSP servers it declares (not started here: no LSP client).
    lsp_servers: tuple[str, ...] = ()
    #: Its `plugin.json` paths of skills, agents and commands (they add to its default folders).
    extra: tuple[tuple[str, Path], ...] = ()

    def definitions(self) -> DefinitionDir:
        return DefinitionDir(
            path=self.root,
            where="plugin",
            areas=(Path(os.path.realpath(self.root)),),
            namespace=self.name,
            extra=self.extra,
        )


@dataclass(frozen=True, kw_only=True)
class Plugins:
    found: tuple[Plugin, ...] = ()
    #: One line per plugin that is enabled but cannot be used, or a file of them that cannot be read.
    skipped: tuple[str, ...] = ()


def _read_json(path: Path, problems: list[str]) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        problems.append(
            f"jupyter_agent: {path}: (file): cannot be read as JSON ({exc}); its plugins are not loaded"
        )
        return None


def installed_plugins(claude_dir: Path, problems: list[str]) -> dict[str, Path]:
    """`name@marketplace` → install path, from Claude Code's record (version 2: a list of installs per plugin;
    version 1: one install)."""
    data = _read_json(claude_dir / INSTALLED, problems)
    plugins = data.get("plugins") if is_object(data) else None
    found: dict[str, Path] = {}
    for key, installs in (plugins or {}).items() if is_object(plugins) else ():
        entries = installs if is_array(installs) else [installs]
        paths = [e.get("installPath") for e in entries if is_object(e)]
        usable = [p for p in paths if isinstance(p, str) and p]
        if usable:
            found[key] = Path(usable[-1])
    return found


def marketplace_entries(folder: Path, problems: list[str]) -> dict[str, dict[str, object]]:
    """`name@marketplace` → the plugin's entry in the marketplace file of `folder`."""
    data = _read_json(folder / MARKETPLACE, problems)
    if not is_object(data) or not isinstance(data.get("name"), str):
        return {}
    entries = data.get("plugins")
    return {
        f"{entry['name']}@{data['name']}": entry
        for entry in (entries if is_array(entries) else [])
        if is_object(entry) and isinstance(entry.get("name"), str)
    }


def known_marketplace_entries(claude_dir: Path, problems: list[str]) -> dict[str, dict[str, object]]:
    """The entries of the marketplaces Claude Code added (its copies under `~/.claude/plugins/marketplaces`)."""
    data = _read_json(claude_dir / KNOWN_MARKETPLACES, problems)
    found: dict[str, dict[str, object]] = {}
    for record in data.values() if is_object(data) else ():
        location = record.get("installLocation") if is_object(record) else None
        if isinstance(location, str) and location:
            found.update(marketplace_entries(Path(location), problems))
    return found


def manifest_paths(root: Path, where: str, data: object, problems: list[str]) -> list[tuple[str, Path]]:
    """`commands`, `agents`, `skills` (a path or a list of them) and `hooks` (a path; an inline object is read by
    `inline_hooks`) of `plugin.json` or of the plugin's marketplace entry (`where` names which; the entry adds to
    the manifest, as Claude Code merges them), each inside the plugin's folder, as (kind, path); what cannot be
    used is a line."""
    found: list[tuple[str, Path]] = []
    for kind in ("commands", "agents", "skills", "hooks"):
        value = data.get(kind) if is_object(data) else None
        if kind == "hooks" and is_object(value):
            continue
        paths = [value] if isinstance(value, str) else value if is_array(value) else []
        if value is not None and not paths:
            problems.append(f"jupyter_agent: {where}: {kind}: expected a path or a list of paths; ignored")
        for item in paths:
            path = Path(os.path.realpath(root / item)) if isinstance(item, str) else None
            if path is None or not path.is_relative_to(os.path.realpath(root)):
                problems.append(f"jupyter_agent: {where}: {kind}: {item!r} is not inside the plugin; skipped")
            else:
                found.append((kind, path))
    return found


def lsp_server_names(root: Path, entry: Mapping[str, object], problems: list[str]) -> tuple[str, ...]:
    """The LSP servers a plugin declares: in its marketplace entry, its `plugin.json` (an object, or the path of
    a file holding one) or its `.lsp.json`."""
    manifest = _read_json(root / MANIFEST, problems)
    declared = manifest.get("lspServers") if is_object(manifest) else None
    sources = [entry.get("lspServers"), declared]
    file = root / (declared if isinstance(declared, str) else ".lsp.json")
    if Path(os.path.realpath(file)).is_relative_to(os.path.realpath(root)):
        sources.append(_read_json(file, problems))
    return tuple(sorted({name for s in sources if is_object(s) for name in s}))


def marketplace_plugins(project_dir: Path, problems: list[str]) -> dict[str, Path]:
    """`name@marketplace` → folder, for the plugins of the project's own marketplace file whose `source` is a
    folder inside the project."""
    path = project_dir / MARKETPLACE
    data = _read_json(path, problems)
    if not is_object(data) or not isinstance(data.get("name"), str):
        return {}
    metadata = data.get("metadata")
    base = metadata.get("pluginRoot") if is_object(metadata) else None
    start = project_dir / base if isinstance(base, str) else project_dir
    found: dict[str, Path] = {}
    entries = data.get("plugins")
    for entry in entries if is_array(entries) else []:
        if not is_object(entry) or not isinstance(entry.get("name"), str):
            continue
        source = entry.get("source")
        if not isinstance(source, str):
            continue  # a GitHub or URL source: Claude Code fetches it into its cache; found there once installed
        folder = Path(os.path.realpath(start / source))
        if folder.is_relative_to(os.path.realpath(project_dir)):
            found[f"{entry['name']}@{data['name']}"] = folder
    return found


def load_plugins(enabled: Mapping[str, Path], *, claude_dir: Path, project_dir: Path, home: Path) -> Plugins:
    """The enabled plugins (`key` → the settings file enabling it) found installed or in the project's
    marketplace; each one that is not is a line saying so."""
    problems: list[str] = []
    known = {**marketplace_plugins(project_dir, problems), **installed_plugins(claude_dir, problems)}
    entries = {
        **marketplace_entries(project_dir, problems),
        **known_marketplace_entries(claude_dir, problems),
    }
    found: list[Plugin] = []
    for key, source in enabled.items():
        root = known.get(key)
        if root is None or not root.is_dir():
            where = f"{root} does not exist" if root is not None else "not installed"
            problems.append(
                f"jupyter_agent: {source}: enabledPlugins.{key}: {where} (install it with Claude Code's /plugin, "
                f"or list it in {MARKETPLACE}); skipped"
            )
            continue
        name = key.split("@")[0]
        anchors = Anchors(
            base=root, project_dir=project_dir, home=home, areas=(Path(os.path.realpath(root)),)
        )
        manifest = root / MANIFEST
        manifest_data = _read_json(manifest, problems)
        extra = [
            *manifest_paths(root, str(manifest), manifest_data, problems),
            *manifest_paths(root, f"the marketplace entry of {key}", entries.get(key), problems),
        ]
        hooks: list[CommandHook] = []
        for file in [root / "hooks" / "hooks.json", *(p for kind, p in extra if kind == "hooks")]:
            read, warnings = read_hooks_file(file, anchors)
            hooks += read
            problems += warnings
        for where, data in (
            (manifest, manifest_data),
            (Path(f"the marketplace entry of {key}"), entries.get(key)),
        ):
            inline = data.get("hooks") if is_object(data) else None
            if is_object(inline):
                read, warnings = read_inline_hooks(where, inline, anchors)
                hooks += read
                problems += warnings
        found.append(
            Plugin(
                key=key,
                name=name,
                root=root,
                enabled_by=source,
                hooks=tuple(_with_root(h, root) for h in hooks),
                lsp_servers=lsp_server_names(root, entries.get(key, {}), problems),
                extra=tuple((kind, path) for kind, path in extra if kind != "hooks"),
            )
        )
    return Plugins(found=tuple(found), skipped=tuple(dict.fromkeys(problems)))  # a file read twice: one line


def _with_root(hook: CommandHook, root: Path) -> CommandHook:
    """The hook as Claude Code runs a plugin's: `${CLAUDE_PLUGIN_ROOT}` expanded in its command and set."""
    command = hook.command.replace(f"${{{PLUGIN_ROOT_VARIABLE}}}", str(root))
    return dataclasses.replace(hook, command=command, env=((PLUGIN_ROOT_VARIABLE, str(root)),))
