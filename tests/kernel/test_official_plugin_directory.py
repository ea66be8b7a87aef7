"""Issue #44, Done-when: Anthropic's official plugin directory (github.com/anthropics/claude-plugins-official,
a trimmed sample in tests/fixtures/claude_plugins_official/) loads in a real kernel as Claude Code lists it,
installed as plugins (Claude Code's cache, `installed_plugins.json`, `known_marketplaces.json`, `enabledPlugins`
in your settings) and as the project's own marketplace (`enabledPlugins` in the trusted project's settings).

What Claude Code lists is worked out here from the directory's files, as its plugins reference describes them:
a plugin is named by its `plugin.json` (or, without one, by its marketplace entry), brings `commands/*.md`,
`agents/**/*.md` (named by their `name:`), `skills/<folder>/SKILL.md` and the events of `hooks/hooks.json`, and
an entry's `lspServers` (a `"strict": false` entry is the whole plugin). Files under a skill's folder
(skill-creator's `agents/*.md`) are the skill's material, not sub-agents."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from frontend import AgentKernel, KernelFrontend

from jupyter_agent.testing import Text, Turn

pytestmark = pytest.mark.kernel

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "claude_plugins_official"
MARKET: dict[str, Any] = json.loads((FIXTURE / ".claude-plugin" / "marketplace.json").read_text())
MARKET_NAME: str = MARKET["name"]


@dataclass(frozen=True, kw_only=True)
class Expected:
    key: str
    lists: dict[str, list[str]]
    lsp: list[str]


def front_matter_name(path: Path) -> str:
    found = re.search(r"^name:\s*(\S.*?)\s*$", path.read_text().split("\n---", 1)[0], re.MULTILINE)
    return found.group(1) if found else path.stem


def expected(entry: dict[str, Any], root: Path) -> Expected:
    manifest = root / ".claude-plugin" / "plugin.json"
    name = json.loads(manifest.read_text())["name"] if manifest.exists() else entry["name"]
    hooks_file = root / "hooks" / "hooks.json"
    lists = {
        "skills": sorted(f"{name}:{p.parent.name}" for p in root.glob("skills/*/SKILL.md")),
        "commands": sorted(f"{name}:{p.stem}" for p in root.glob("commands/*.md")),
        "sub-agents": sorted(f"{name}:{front_matter_name(p)}" for p in root.glob("agents/**/*.md")),
        "hooks": sorted(json.loads(hooks_file.read_text())["hooks"]) if hooks_file.exists() else [],
    }
    return Expected(
        key=f"{entry['name']}@{MARKET_NAME}", lists=lists, lsp=sorted(entry.get("lspServers", {}))
    )


def listed_plugins(text: str) -> dict[str, dict[str, list[str]]]:
    """`%agent plugins` → key → kind → names (a plugin's line, then its `  kind: a, b` lines)."""
    plugins: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] = {}
    for line in text.splitlines():
        if not line.startswith(" "):
            current = plugins.setdefault(line.split()[0], {})
        elif ": " in line:
            kind, names = line.strip().split(": ", 1)
            current[kind] = sorted(names.split(", "))
    return plugins


def check_listing(frontend: KernelFrontend, roots: dict[str, Path]) -> None:
    text = frontend.run("%agent plugins").text()
    listed = listed_plugins(text)
    wanted = [expected(entry, roots[entry["name"]]) for entry in MARKET["plugins"]]
    assert sorted(listed) == sorted(e.key for e in wanted), text
    for plugin in wanted:
        got = listed[plugin.key]
        for kind, names in plugin.lists.items():
            assert got.get(kind, []) == names, (plugin.key, kind, text)
        lsp = got.get("not used here", [])
        assert [n for n in plugin.lsp if not any(n in item for item in lsp)] == [], (plugin.key, text)
    assert "skipped" not in text, text
    names = frontend.run("%agent skills").text()
    for plugin in wanted:
        for kind in ("skills", "commands", "sub-agents"):
            for name in plugin.lists[kind]:
                assert re.search(rf"^/?{re.escape(name)}\s", names, re.MULTILINE), (name, names)


def test_the_official_directory_installed_as_plugins_lists_as_claude_code_lists_it(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    plugins_dir = home / ".claude" / "plugins"
    market_copy = plugins_dir / "marketplaces" / MARKET_NAME
    shutil.copytree(FIXTURE, market_copy)
    roots: dict[str, Path] = {}
    installs: dict[str, list[dict[str, str]]] = {}
    for entry in MARKET["plugins"]:
        source = FIXTURE / entry["source"]
        manifest = source / ".claude-plugin" / "plugin.json"
        version = json.loads(manifest.read_text()).get("version") if manifest.exists() else None
        root = (
            plugins_dir
            / "cache"
            / MARKET_NAME
            / entry["name"]
            / (version or entry.get("version") or "unknown")
        )
        shutil.copytree(source, root)
        roots[entry["name"]] = root
        installs[f"{entry['name']}@{MARKET_NAME}"] = [{"scope": "user", "installPath": str(root)}]
    (plugins_dir / "installed_plugins.json").write_text(json.dumps({"version": 2, "plugins": installs}))
    known = {
        MARKET_NAME: {
            "source": {"source": "github", "repo": "anthropics/claude-plugins-official"},
            "installLocation": str(market_copy),
        }
    }
    (plugins_dir / "known_marketplaces.json").write_text(json.dumps(known))
    enabled = {"enabledPlugins": dict.fromkeys(installs, True)}
    (home / ".claude" / "settings.json").write_text(json.dumps(enabled))
    (tmp_path / ".git").mkdir()
    frontend, _ = agent_kernel([Turn(blocks=[Text("ok")])], env={"HOME": str(home)})
    check_listing(frontend, roots)


def test_the_official_directory_as_the_projects_own_marketplace_lists_as_claude_code_lists_it(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    shutil.copytree(FIXTURE, tmp_path, dirs_exist_ok=True)
    (tmp_path / ".git").mkdir()
    enabled = {"enabledPlugins": {f"{e['name']}@{MARKET_NAME}": True for e in MARKET["plugins"]}}
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(enabled))
    frontend, _ = agent_kernel([Turn(blocks=[Text("ok")])], env={"HOME": str(tmp_path / "home")})
    assert frontend.run("%agent trust").text().startswith(f"trusted {tmp_path}")
    frontend.run("%agent reset")
    check_listing(frontend, {e["name"]: (tmp_path / e["source"]).resolve() for e in MARKET["plugins"]})
