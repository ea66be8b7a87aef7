"""A skill's `` !`cmd` `` lines when the model loads it with the Skill tool: nothing runs (loading a skill asks
no one; `%agent /name` is where they run first, through the gate), and the model is told so, so that it runs
the ones it needs with Bash under the usual rules. Through the real Skill tool and Dispatcher."""

from __future__ import annotations

from pathlib import Path

from dispatch_harness import ToolHarness

from jupyter_agent.builtin_tools.skill import NOT_RUN, Skill, SkillTool
from jupyter_agent.permissions.policy import PermissionPolicy


def loaded(tmp_path: Path, body: str) -> str:
    folder = tmp_path / ".claude" / "skills" / "status"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\ndescription: the branch's state\n---\n{body}")
    skill = Skill(name="status", description="the branch's state", directory=folder)
    tools = ToolHarness(tmp_path, [SkillTool([skill])], policy=PermissionPolicy(mode="bypassPermissions"))
    result = tools.call("Skill", skill="status")
    assert not result.is_error, result.content
    return result.content


def test_a_skills_bang_lines_are_not_run_when_the_model_loads_it_and_the_model_is_told(
    tmp_path: Path,
) -> None:
    text = loaded(tmp_path, "Changed files: !`touch ran.txt && git status --short`\nSummarise them.\n")
    assert "!`touch ran.txt && git status --short`" in text and text.rstrip().endswith(NOT_RUN)
    assert not (tmp_path / "ran.txt").exists()


def test_a_skill_without_bang_lines_gets_no_note(tmp_path: Path) -> None:
    text = loaded(tmp_path, "Use `git status` and say what `!important` means in CSS.\n")
    assert NOT_RUN not in text
