"""`Skill(name)` and `Agent(type)` / `Task(type)` permission rules, as Claude Code's permissions page documents
them, from every place a skill or a sub-agent starts: the Skill tool, `%agent /name`, and Task."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from project_shell_kit import Files, ProjectShell, Serve

from jupyter_agent.testing import Text, ToolUse, Turn

SKILL_SECRET = "the vault combination is 12-34-56"
SKILLS: Files = {
    ".claude/skills/secret-skill/SKILL.md": f"---\ndescription: Opens the vault\n---\n{SKILL_SECRET}\n",
    ".claude/skills/deploy/SKILL.md": "---\ndescription: Deploys\n---\nDeploy $ARGUMENTS now.\n",
    ".claude/commands/ship.md": "Ship it.\n",
    ".claude/agents/reviewer.md": "---\ndescription: Reviews diffs\n---\nReview.\n",
}


def settings(**rules: list[str]) -> Files:
    return {".claude/settings.json": {"permissions": rules}}


def tool_results(request: dict[str, Any]) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = request["messages"][-1]["content"]
    return [block for block in content if block["type"] == "tool_result"]


def result_text(result: dict[str, Any]) -> str:
    return json.dumps(result["content"])


def test_a_denied_skill_is_refused_by_the_skill_tool_and_its_body_never_reaches_the_model(
    project_shell: ProjectShell, serve: Serve
) -> None:
    shell = project_shell({**SKILLS, **settings(deny=["Skill(secret-skill)", "Skill(deploy *)"])})
    server = serve(
        [
            Turn(
                blocks=[
                    ToolUse(name="Skill", input={"skill": "secret-skill"}),
                    ToolUse(name="Skill", input={"skill": "secret-skill/SKILL.md"}),
                    ToolUse(name="Skill", input={"skill": "deploy"}),
                    ToolUse(name="Skill", input={"skill": "deploy", "args": "prod"}),
                ]
            ),
            Turn(blocks=[Text("I may not.")]),
        ]
    )
    shell.run_cell_magic("agent", "", "open the vault")
    results = tool_results(server.requests[1])
    assert [r.get("is_error") for r in results] == [True, True, True, True]
    assert "Skill is denied by the rule Skill(secret-skill)" in result_text(results[0])
    assert "Skill is denied by the rule Skill(deploy *)" in result_text(results[3])
    assert all(SKILL_SECRET not in json.dumps(body) for body in server.requests)


def test_a_denied_skill_or_command_is_refused_by_percent_agent_slash_and_nothing_is_sent(
    project_shell: ProjectShell, serve: Serve
) -> None:
    shell = project_shell({**SKILLS, **settings(deny=["Skill(secret-skill)", "Skill(ship)"])})
    server = serve([Turn(blocks=[Text("Deployed.")])])
    with pytest.raises(UsageError, match=r"%agent /secret-skill: denied by the rule Skill\(secret-skill\)"):
        shell.run_line_magic("agent", "/secret-skill")
    with pytest.raises(UsageError, match=r"%agent /ship: denied by the rule Skill\(ship\)"):
        shell.run_line_magic("agent", "/ship")
    assert server.requests == []
    shell.run_line_magic("agent", "/deploy prod")  # a skill no rule denies still runs
    assert "Deploy prod now." in json.dumps(server.requests[0])


def test_a_denied_sub_agent_type_is_refused_by_task_under_its_new_and_its_old_name(
    project_shell: ProjectShell, serve: Serve
) -> None:
    shell = project_shell({**SKILLS, **settings(deny=["Agent(Explore)", "Task(reviewer)"])})
    task = {"description": "Look around", "prompt": "List the files."}
    server = serve(
        [
            Turn(
                blocks=[
                    ToolUse(name="Task", input=task),  # Explore is the default type
                    ToolUse(name="Task", input={**task, "subagent_type": "Explore"}),
                    ToolUse(name="Task", input={**task, "subagent_type": "reviewer"}),
                ]
            ),
            Turn(blocks=[Text("Refused.")]),
        ]
    )
    shell.run_cell_magic("agent", "", "look around")
    assert len(server.requests) == 2  # no sub-agent conversation was started
    results = tool_results(server.requests[1])
    assert [r.get("is_error") for r in results] == [True, True, True]
    assert "Task is denied by the rule Agent(Explore)" in result_text(results[0])
    assert "Task is denied by the rule Task(reviewer)" in result_text(results[2])


def test_an_ask_rule_on_a_skill_or_an_agent_asks_before_it_starts_and_a_no_refuses_it(
    project_shell: ProjectShell,
    serve: Serve,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    shell = project_shell({**SKILLS, **settings(ask=["Skill(deploy)", "Agent(general-purpose)"])})
    asked: list[str] = []
    monkeypatch.setattr("builtins.input", lambda prompt: asked.append(prompt) or "n")
    task = {"description": "Change it", "prompt": "Edit x.", "subagent_type": "general-purpose"}
    server = serve(
        [
            Turn(
                blocks=[
                    ToolUse(name="Skill", input={"skill": "deploy"}),
                    ToolUse(name="Task", input=task),
                    ToolUse(name="Skill", input={"skill": "secret-skill"}),
                ]
            ),
            Turn(blocks=[Text("Asked.")]),
        ]
    )
    shell.run_cell_magic("agent", "", "deploy")
    assert len(asked) == 2  # the skill no rule names is read-only: it loads without a question
    out = capsys.readouterr().out
    assert "the rule Skill(deploy) asks for approval" in out
    assert "the rule Agent(general-purpose) asks for approval" in out
    results = tool_results(server.requests[1])
    assert [r.get("is_error", False) for r in results] == [True, True, False]
    assert "Deploy" not in result_text(results[0]) and SKILL_SECRET in result_text(results[2])


def test_percent_agent_plugins_lists_what_each_plugin_brought_and_what_was_skipped(
    project_shell: ProjectShell, capsys: pytest.CaptureFixture[str]
) -> None:
    shell = project_shell({})
    user = Path.home() / ".claude"
    root = user / "plugins" / "cache" / "market" / "guard" / "1.0.0"
    (root / "skills" / "scan").mkdir(parents=True)
    (root / "skills" / "scan" / "SKILL.md").write_text("---\ndescription: Scan for secrets\n---\nScan.\n")
    (root / "agents").mkdir()
    (root / "agents" / "empty.md").write_text("---\nname: empty\n---\nNo description.\n")
    record = {"version": 2, "plugins": {"guard@market": [{"installPath": str(root)}]}}
    (user / "plugins" / "installed_plugins.json").write_text(json.dumps(record))
    (user / "settings.json").write_text(
        json.dumps({"enabledPlugins": {"guard@market": True, "gone@market": True}})
    )
    shell.run_line_magic("agent", "reset")
    capsys.readouterr()
    shell.run_line_magic("agent", "plugins")
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == [
        f"guard@market  {root}  (enabled in {user / 'settings.json'})",
        "  skills: guard:scan",
        f"  skipped: jupyter_agent: {root}/agents/empty.md: description: missing: the model cannot tell when to "
        "use the agent; skipped",
    ]
    assert out[3].startswith(
        f"skipped: jupyter_agent: {user / 'settings.json'}: enabledPlugins.gone@market: not"
    )
