"""Stacked skill restrictions: a skill loaded while another skill's (or a command's) `allowed-tools` is active
narrows within it instead of replacing it, through the real Skill tool, Dispatcher and file tools."""

from __future__ import annotations

from pathlib import Path

from dispatch_harness import ToolHarness

from jupyter_agent.builtin_tools.files import file_tools
from jupyter_agent.builtin_tools.skill import Skill, SkillTool
from jupyter_agent.permissions.policy import PermissionPolicy, Rule, ToolScope


def skill(tmp_path: Path, name: str, allowed: tuple[str, ...] | None) -> Skill:
    folder = tmp_path / ".claude" / "skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\ndescription: {name}\n---\nDo the {name} thing.\n")
    return Skill(name=name, description=name, directory=folder, allowed_tools=allowed)


def harness(tmp_path: Path, policy: PermissionPolicy) -> ToolHarness:
    skills = [
        skill(tmp_path, "survey", ("Read", "Glob")),
        skill(tmp_path, "writer", ("Read", "Write")),
        skill(tmp_path, "reader", ("Read",)),
        skill(tmp_path, "plain", None),
    ]
    (tmp_path / "data.csv").write_text("a,b\n")
    return ToolHarness(tmp_path, [*file_tools(), SkillTool(skills)], policy=policy)


def test_a_nested_skill_cannot_widen_the_outer_skills_tools(tmp_path: Path) -> None:
    policy = PermissionPolicy(mode="bypassPermissions")
    tools = harness(tmp_path, policy)
    assert not tools.call("Skill", skill="survey").is_error
    loaded = tools.call("Skill", skill="writer")
    assert "Inside the allowed-tools of the skill 'survey'" in loaded.content

    refused = tools.call("Write", file_path="out.txt", content="x")
    assert refused.error_code == "DENIED"
    assert (
        "outside the allowed-tools of the skill 'survey' (Read, Glob), which the skill 'writer' narrows"
        in (refused.content)
    )
    assert not (tmp_path / "out.txt").exists()
    assert not tools.call("Read", file_path="data.csv").is_error  # both allow it


def test_the_inner_skill_narrows_further(tmp_path: Path) -> None:
    policy = PermissionPolicy(mode="bypassPermissions")
    tools = harness(tmp_path, policy)
    tools.call("Skill", skill="writer")
    tools.call("Skill", skill="reader")
    refused = tools.call("Write", file_path="out.txt", content="x")  # the outer allows it, the inner does not
    assert refused.error_code == "DENIED"
    assert "outside the allowed-tools of the skill 'reader' (Read);" in refused.content


def test_a_skill_without_allowed_tools_keeps_the_outer_scope_and_a_first_skill_sets_its_own(
    tmp_path: Path,
) -> None:
    policy = PermissionPolicy(mode="bypassPermissions")
    tools = harness(tmp_path, policy)
    tools.call("Skill", skill="writer")
    assert not tools.call("Write", file_path="out.txt", content="x").is_error  # alone, its own tools run
    tools.call("Skill", skill="plain")
    assert policy.scope is not None and policy.scope.owner == "the skill 'writer'"
    assert tools.call("Edit", file_path="data.csv", old_string="a", new_string="b").error_code == "DENIED"


def test_a_skill_inside_a_commands_scope_narrows_within_it(tmp_path: Path) -> None:
    command = ToolScope(rules=(Rule("Read"),), owner="the command /peek")
    policy = PermissionPolicy(mode="bypassPermissions", scope=command)
    tools = harness(tmp_path, policy)
    tools.call("Skill", skill="writer")
    refused = tools.call("Write", file_path="out.txt", content="x")
    assert "outside the allowed-tools of the command /peek (Read)" in refused.content
    assert not (tmp_path / "out.txt").exists()
