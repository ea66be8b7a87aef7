"""MCP servers from Claude Code's files (issue #44): `~/.claude.json` (user and local scope), a project's `.mcp.json`
(project scope: only once approved, `disabledMcpjsonServers` wins) and enabled plugins' servers, as Claude Code's
MCP docs describe them. The "home" is the test's own (`tree`), never the real one."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
from project_tree import Tree

from jupyter_agent.builtin_tools.mcp.servers import McpServers
from jupyter_agent.host.build import apply_mcp_settings
from jupyter_agent.host.texts import mcp_text
from jupyter_agent.settings import AgentSettings

ECHO = {"command": sys.executable, "args": ["-c", "pass"]}


def claude_json(tree: Tree, data: dict[str, object]) -> Path:
    return tree.write(".claude.json", data, base=tree.home)


def states(tree: Tree) -> dict[str, tuple[str, str]]:
    offer = tree.claude().settings.mcp
    return {s.name: (s.state, s.source) for s in offer.servers}


def test_a_projects_servers_wait_for_approval_and_yours_start(tree: Tree) -> None:
    mcp_json = tree.write(
        ".mcp.json", {"mcpServers": {"db": ECHO, "docs": {"type": "http", "url": "http://x/mcp"}}}
    )
    home_json = claude_json(
        tree,
        {
            "mcpServers": {"notes": ECHO},
            "projects": {
                str(tree.project): {"mcpServers": {"scratch": ECHO}, "hasTrustDialogAccepted": True}
            },
        },
    )
    assert states(tree) == {
        "notes": ("offered", f"user: {home_json}"),
        "db": ("waiting", f"project: {mcp_json}"),
        "docs": ("waiting", f"project: {mcp_json}"),
        "scratch": ("offered", f"local: {home_json} (this project)"),
    }
    offer = tree.claude().settings.mcp
    assert sorted(offer.started()) == ["notes", "scratch"]
    (db,) = [s for s in offer.held() if s.name == "db"]
    assert db.why == (
        "not started: a project's server waits for your approval: %agent mcp approve db (or list it in "
        "enabledMcpjsonServers of .claude/settings.local.json)"
    )


def test_approvals_by_name_all_or_claude_codes_own_and_a_refusal_wins(tree: Tree) -> None:
    tree.write(".mcp.json", {"mcpServers": {"db": ECHO, "docs": ECHO, "web": ECHO}})
    claude_json(
        tree,
        {
            "projects": {
                str(tree.project): {
                    "hasTrustDialogAccepted": True,
                    "enabledMcpjsonServers": ["docs"],
                    "disabledMcpjsonServers": ["web"],
                }
            }
        },
    )
    local = tree.settings({"enabledMcpjsonServers": ["db"]}, "settings.local.json")
    assert {n: s for n, (s, _) in states(tree).items()} == {
        "db": "offered",
        "docs": "offered",
        "web": "disabled",
    }
    tree.settings(
        {"enableAllProjectMcpServers": True, "disabledMcpjsonServers": ["db"]}, "settings.local.json"
    )
    offer = tree.claude().settings.mcp
    assert {s.name: s.state for s in offer.servers} == {
        "db": "disabled",
        "docs": "offered",
        "web": "disabled",
    }
    db = offer.named("db")
    assert db is not None and db.why == f"not started: disabled by disabledMcpjsonServers in {local}"


def test_a_projects_own_settings_approve_nothing_until_it_is_trusted(tree: Tree) -> None:
    tree.write(".mcp.json", {"mcpServers": {"db": ECHO}})
    settings = tree.settings({"enableAllProjectMcpServers": True})
    claude = tree.claude()
    assert claude.settings.mcp.started() == {}
    (line,) = [w for w in claude.take_warnings() if "not applied" in w]
    assert (
        line.startswith(f"jupyter_agent: {settings}: hooks, allow rules") and "MCP server approvals" in line
    )
    claude.trust()
    assert sorted(claude.settings.mcp.started()) == ["db"]


def test_approve_records_the_users_answer_and_the_server_starts(tree: Tree) -> None:
    tree.write(".mcp.json", {"mcpServers": {"db": ECHO}})
    claude = tree.claude()
    said = claude.approve_mcp_server("db")
    record = tree.home / ".jupyter_agent" / "mcp_approvals.json"
    assert said == (f"approved the MCP server 'db' of {tree.project} (recorded in {record}); it starts now")
    assert json.loads(record.read_text()) == {"projects": {str(tree.project): ["db"]}}
    assert sorted(claude.settings.mcp.started()) == ["db"]
    assert sorted(tree.claude().settings.mcp.started()) == ["db"]  # a later session too
    with pytest.raises(KeyError, match=r"no server named 'nope' in .*\.mcp\.json \(waiting: none\)"):
        claude.approve_mcp_server("nope")


def test_a_name_in_several_scopes_is_taken_from_the_most_specific(tree: Tree) -> None:
    tree.write(".mcp.json", {"mcpServers": {"db": {**ECHO, "args": ["project"]}}})
    claude_json(
        tree,
        {
            "mcpServers": {"db": {**ECHO, "args": ["user"]}},
            "projects": {str(tree.project): {"mcpServers": {"db": {**ECHO, "args": ["local"]}}}},
        },
    )
    (db,) = tree.claude().settings.mcp.servers
    assert (db.scope, db.config["args"]) == ("local", ["local"])


def test_an_enabled_plugins_servers_start_named_as_claude_code_names_them(tree: Tree) -> None:
    root = tree.home / ".claude" / "plugins" / "cache" / "m" / "gh" / "1.0.0"
    tree.write(".claude-plugin/plugin.json", {"name": "gh"}, base=root)
    tree.write(
        ".mcp.json", {"github": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/server", "args": ["--x"]}}, base=root
    )
    record = {"version": 2, "plugins": {"gh@m": [{"scope": "user", "installPath": str(root)}]}}
    tree.write(".claude/plugins/installed_plugins.json", record, base=tree.home)
    tree.user_settings({"enabledPlugins": {"gh@m": True}})
    started = tree.claude().settings.mcp.started()
    assert started == {
        "plugin:gh:github": {
            "command": f"{root}/bin/server",
            "args": ["--x"],
            "env": {"CLAUDE_PLUGIN_ROOT": str(root)},
        }
    }


def test_a_file_that_is_not_json_or_a_server_that_is_not_an_object_is_one_line(tree: Tree) -> None:
    mcp_json = tree.write(".mcp.json", "{not json")
    claude = tree.claude()
    assert claude.settings.mcp.servers == ()
    (line,) = claude.take_warnings()
    assert line.startswith(f"jupyter_agent: {mcp_json}: cannot be read as JSON (")
    tree.write(".mcp.json", {"mcpServers": {"db": "npx db"}})
    (line,) = tree.claude().take_warnings()
    assert (
        line == f"jupyter_agent: {mcp_json}: mcpServers.db: expected an object with command or url; skipped"
    )


def test_mcp_lists_each_server_with_its_source_and_why_it_waits(tree: Tree) -> None:
    """Through the session's server manager: the setting's server wins over a file's of the same name, a waiting
    server is listed (never started), and `${VAR:-default}` sees the project's `env`."""
    mcp_json = tree.write(".mcp.json", {"mcpServers": {"db": ECHO}})
    home_json = claude_json(
        tree,
        {"mcpServers": {"notes": {"command": "${NOTES_BIN:-/nonexistent/notes}", "args": []}, "mine": ECHO}},
    )
    tree.user_settings({"env": {"NOTES_BIN": "/nonexistent/from-env"}})
    settings = AgentSettings()
    settings.mcp_servers = {"mine": {"command": "/nonexistent/setting"}}
    project = tree.claude().settings

    async def listed() -> str:
        servers = McpServers(startup_timeout=5)
        await apply_mcp_settings(servers, settings, project)
        await servers.settled()
        configs = {name: dict(raw) for name, raw in servers._configs.items()}
        assert set(configs) == {"mine", "notes"}
        text = mcp_text(servers.statuses())
        await servers.aclose()
        return text

    text = asyncio.run(listed())
    lines = text.splitlines()
    assert lines[0] == f"db     waiting  ({f'project: {mcp_json}'})"
    assert lines[1].startswith("         not started: a project's server waits for your approval")
    mine = next(line for line in lines if line.startswith("mine "))
    assert mine == "mine   failed"  # the setting's: no source
    notes = next(line for line in lines if line.startswith("notes "))
    assert notes == f"notes  failed  ({f'user: {home_json}'})"
    assert "/nonexistent/from-env" in text
