"""Claude Code plugins (issue #44): an installed plugin (Claude Code's cache, `installed_plugins.json`) or one of
the project's own marketplace file, turned on by `enabledPlugins`, brings its skills, commands and agents named
`plugin:name` and its `hooks/hooks.json` with `${CLAUDE_PLUGIN_ROOT}` set; a project's `enabledPlugins` waits for
trust. The layout is the one Claude Code's plugin docs describe and anthropics/claude-code `plugins/` uses
(`.claude-plugin/plugin.json`, `skills/<name>/SKILL.md`, `hooks/hooks.json`); the file texts are written here.
The "user" Claude dir is the test's own home (`tree`), never the real one."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from project_tree import Tree

from jupyter_agent.tools.command_hooks import CommandHooks, HookSession
from jupyter_agent.tools.hooks import HookCall

MARKET = "claude-plugins-official"


def install(tree: Tree, name: str) -> Path:
    """A plugin in Claude Code's cache, recorded in `installed_plugins.json` (its version 2 shape)."""
    root = tree.home / ".claude" / "plugins" / "cache" / MARKET / name / "0.1.0"
    tree.write(".claude-plugin/plugin.json", {"name": name, "version": "0.1.0"}, base=root)
    tree.write(
        "skills/plugin-settings/SKILL.md",
        "---\nname: Plugin Settings\ndescription: Keep a plugin's settings\n---\nBody.\n",
        base=root,
    )
    tree.write("commands/create-plugin.md", "---\ndescription: Make a plugin\n---\nMake one.\n", base=root)
    tree.write(
        "agents/review/checker.md", "---\nname: checker\ndescription: Checks it\n---\nCheck.\n", base=root
    )
    tree.write("agents/bad.md", "---\nname: bad\n---\nNo description.\n", base=root)
    record = {"version": 2, "plugins": {f"{name}@{MARKET}": [{"scope": "user", "installPath": str(root)}]}}
    tree.write(".claude/plugins/installed_plugins.json", record, base=tree.home)
    return root


def test_an_enabled_installed_plugin_brings_its_definitions_named_as_claude_code_names_them(
    tree: Tree,
) -> None:
    root = install(tree, "plugin-dev")
    tree.user_settings({"enabledPlugins": {f"plugin-dev@{MARKET}": True}})
    claude = tree.claude()
    library = claude.library
    assert [s.name for s in library.skills] == ["plugin-dev:plugin-settings"]
    assert [c.name for c in library.commands] == ["plugin-dev:create-plugin"]
    assert [a.name for a in library.agents] == ["plugin-dev:checker"]
    (line,) = claude.take_warnings()
    assert line.startswith(f"jupyter_agent: {root}/agents/bad.md: description: missing")


def test_a_plugin_that_is_not_enabled_or_not_installed_brings_nothing_and_says_why(tree: Tree) -> None:
    install(tree, "plugin-dev")
    settings = tree.user_settings({"enabledPlugins": {f"plugin-dev@{MARKET}": False, "ghost@nowhere": True}})
    claude = tree.claude()
    assert claude.library.skills == ()
    assert claude.take_warnings() == [
        f"jupyter_agent: {settings}: enabledPlugins.ghost@nowhere: not installed (install it with Claude Code's "
        "/plugin, or list it in .claude-plugin/marketplace.json); skipped"
    ]


def test_a_projects_marketplace_plugin_enabled_by_the_project_waits_for_trust(tree: Tree) -> None:
    tree.write(
        ".claude-plugin/marketplace.json",
        {"name": "team", "plugins": [{"name": "tidy", "source": "./plugins/tidy"}]},
    )
    tree.write("plugins/tidy/skills/tidy/SKILL.md", "---\ndescription: Tidy up\n---\nTidy.\n")
    tree.settings({"enabledPlugins": {"tidy@team": True}})
    claude = tree.claude()
    assert claude.library.skills == ()
    assert any("MCP server approvals are not applied until you trust" in w for w in claude.take_warnings())
    claude.trust()
    claude.reload()
    assert [s.name for s in claude.library.skills] == ["tidy:tidy"]


def test_a_plugins_hook_runs_with_its_root_set_and_expanded(tree: Tree) -> None:
    root = install(tree, "guard")
    script = root / "hooks" / "check.py"
    tree.write(
        "hooks/check.py",
        "import json, os, sys\n"
        "data = json.load(sys.stdin)\n"
        "ok = os.environ['CLAUDE_PLUGIN_ROOT'] == sys.argv[1] and data['hook_event_name'] == 'PreToolUse'\n"
        "sys.exit(0 if ok else 2)\n",
        base=root,
    )
    hooks = {
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [
                        {
                            "type": "command",
                            "command": f'{sys.executable} "${{CLAUDE_PLUGIN_ROOT}}/hooks/check.py" "{root}"',
                        }
                    ],
                }
            ]
        }
    }
    tree.write("hooks/hooks.json", hooks, base=root)
    tree.user_settings({"enabledPlugins": {f"guard@{MARKET}": True}})
    (hook,) = tree.claude().settings.hooks
    assert str(script) in hook.command and "${CLAUDE_PLUGIN_ROOT}" not in hook.command
    session = HookSession(
        session_id="s1", transcript_path="", cwd=str(tree.project), permission_mode="default"
    )
    said: list[str] = []
    runner = CommandHooks([hook], session=lambda: session, report=said.append)
    call = HookCall(tool="Bash", input={"command": "ls"}, subject="ls", tool_use_id="toolu_1")
    verdict = asyncio.run(runner.pre_tool_use(call))
    assert verdict is None and said == []  # exit 2 (a wrong root or payload) would deny the call


def test_a_plugins_lsp_servers_are_named_from_its_manifest_its_lsp_file_and_its_marketplace_entry(
    tree: Tree,
) -> None:
    """The official directory's language-server plugins declare `lspServers` in their marketplace entry
    (`"strict": false`, no manifest); others in `plugin.json` or `.lsp.json`. They are named, not started."""
    root = install(tree, "langs")
    tree.write(".claude-plugin/plugin.json", {"name": "langs", "lspServers": "./servers.json"}, base=root)
    tree.write(
        "servers.json", {"gopls": {"command": "gopls", "extensionToLanguage": {".go": "go"}}}, base=root
    )
    market = tree.home / ".claude" / "plugins" / "marketplaces" / MARKET
    entry = {
        "name": "langs",
        "source": "./langs",
        "strict": False,
        "lspServers": {"pyright": {"command": "p"}},
    }
    tree.write(".claude-plugin/marketplace.json", {"name": MARKET, "plugins": [entry]}, base=market)
    known = {MARKET: {"installLocation": str(market)}}
    tree.write(".claude/plugins/known_marketplaces.json", known, base=tree.home)
    tree.user_settings({"enabledPlugins": {f"langs@{MARKET}": True}})
    (plugin,) = tree.claude().settings.plugins.found
    assert plugin.lsp_servers == ("gopls", "pyright")


def test_a_plugins_manifest_paths_add_to_its_default_folders_and_stay_inside_it(tree: Tree) -> None:
    """The plugins reference: `commands`, `agents`, `skills` and `hooks` of `plugin.json` name more files or
    folders, which supplement (not replace) the default ones; a path leading out of the plugin is refused."""
    root = install(tree, "kit")
    manifest = {
        "name": "kit",
        "commands": ["./extra/special.md"],
        "agents": "./custom/agents/",
        "skills": ["./more-skills/", "./one-skill"],
        "hooks": "./config/hooks.json",
        "mcpServers": {},
    }
    tree.write("extra/special.md", "---\ndescription: Special\n---\nDo it.\n", base=root)
    tree.write(
        "custom/agents/auditor.md", "---\nname: auditor\ndescription: Audits\n---\nAudit.\n", base=root
    )
    tree.write("more-skills/triage/SKILL.md", "---\ndescription: Triage\n---\nTriage.\n", base=root)
    tree.write("one-skill/SKILL.md", "---\nname: one-skill\ndescription: One\n---\nOne.\n", base=root)
    hooks = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}
    tree.write("config/hooks.json", hooks, base=root)
    tree.write(
        ".claude-plugin/plugin.json",
        {**manifest, "agents": ["./custom/agents/", "../../elsewhere"]},
        base=root,
    )
    tree.user_settings({"enabledPlugins": {f"kit@{MARKET}": True}})
    claude = tree.claude()
    library = claude.library
    assert sorted(s.name for s in library.skills) == ["kit:one-skill", "kit:plugin-settings", "kit:triage"]
    assert sorted(c.name for c in library.commands) == ["kit:create-plugin", "kit:special"]
    assert sorted(a.name for a in library.agents) == ["kit:auditor", "kit:checker"]
    assert [h.event for h in claude.settings.hooks] == ["Stop"]
    (skipped,) = claude.settings.plugins.skipped
    assert skipped == (
        f"jupyter_agent: {root}/.claude-plugin/plugin.json: agents: '../../elsewhere' is not inside the plugin; "
        "skipped"
    )


def test_a_marketplace_entrys_component_paths_add_to_the_plugin_as_claude_code_merges_them(
    tree: Tree,
) -> None:
    entry = {
        "name": "tidy",
        "source": "./plugins/tidy",
        "strict": False,
        "commands": ["./extra/sweep.md"],
        "agents": "../../elsewhere",
    }
    tree.write(".claude-plugin/marketplace.json", {"name": "team", "plugins": [entry]})
    tree.write("plugins/tidy/skills/tidy/SKILL.md", "---\ndescription: Tidy up\n---\nTidy.\n")
    tree.write("plugins/tidy/extra/sweep.md", "---\ndescription: Sweep\n---\nSweep.\n")
    tree.settings({"enabledPlugins": {"tidy@team": True}})
    claude = tree.claude()
    claude.trust()
    claude.reload()
    assert [c.name for c in claude.library.commands] == ["tidy:sweep"]
    assert [s.name for s in claude.library.skills] == ["tidy:tidy"]
    assert claude.settings.plugins.skipped == (
        "jupyter_agent: the marketplace entry of tidy@team: agents: '../../elsewhere' is not inside the plugin; "
        "skipped",
    )


def test_a_plugins_inline_hooks_in_its_manifest_run_beside_its_hooks_file(
    tree: Tree,
) -> None:
    """The plugins reference allows `hooks` in `plugin.json` as a path or as the hooks object itself."""
    root = install(tree, "inline")

    def group(tag: str) -> dict[str, object]:
        return {
            "matcher": "Bash",
            "hooks": [{"type": "command", "command": f"echo {tag} ${{CLAUDE_PLUGIN_ROOT}}"}],
        }

    tree.write(
        ".claude-plugin/plugin.json",
        {"name": "inline", "version": "0.1.0", "hooks": {"PreToolUse": [group("from-manifest")]}},
        base=root,
    )
    tree.write("hooks/hooks.json", {"hooks": {"PostToolUse": [group("from-file")]}}, base=root)
    tree.user_settings({"enabledPlugins": {f"inline@{MARKET}": True}})
    claude = tree.claude()
    hooks = claude.settings.hooks
    assert sorted((h.event, h.command) for h in hooks) == [
        ("PostToolUse", f"echo from-file {root}"),
        ("PreToolUse", f"echo from-manifest {root}"),
    ]
    assert [
        w for w in claude.take_warnings() if "bad.md" not in w
    ] == []  # (the installed sample's bad agent)
