"""A loaded skill lists its other files, and Read reads them at their paths under the skill's base directory
even where the skill lives outside the roots (a notebook in a subfolder, a skill in `~/.claude/skills/`) —
read only: writing there, a path outside every skill, and a symlink out of a skill are still refused."""

from __future__ import annotations

from pathlib import Path

from dispatch_harness import ToolHarness
from project_tree import Tree

from jupyter_agent.base.result import ToolResult
from jupyter_agent.builtin_tools.files import file_tools
from jupyter_agent.host.configure import run_setup
from jupyter_agent.project.setup import project_setup
from jupyter_agent.settings import AgentSettings
from jupyter_agent.tools import Sandbox

SKILL = "---\nname: profile\ndescription: Profile a CSV file\n---\nSee reference.md.\n"


def dispatch(tree: Tree, name: str, **fields: str) -> ToolResult:
    notebook_dir = tree.project / "analysis"
    notebook_dir.mkdir(exist_ok=True)
    claude = tree.claude(notebook_dir)
    setup = run_setup(AgentSettings(), claude=project_setup(claude), sandbox=Sandbox.at(notebook_dir))
    return ToolHarness(setup.sandbox, file_tools(), policy=setup.policy()).call(name, dict(fields))


def test_read_reads_a_project_skills_file_above_the_notebooks_directory(tree: Tree) -> None:
    tree.write(".claude/skills/profile/SKILL.md", SKILL)
    reference = tree.write(".claude/skills/profile/reference.md", "| column | type |\n")
    result = dispatch(tree, "Read", file_path=str(reference))
    assert not result.is_error, result.content
    assert "| column | type |" in result.content


def test_read_reads_a_user_skills_file(tree: Tree) -> None:
    tree.write(".claude/skills/mine/SKILL.md", SKILL.replace("profile", "mine"), base=tree.home)
    notes = tree.write(".claude/skills/mine/notes.md", "my notes\n", base=tree.home)
    result = dispatch(tree, "Read", file_path=str(notes))
    assert not result.is_error, result.content
    assert "my notes" in result.content


def test_a_skills_files_stay_read_only_and_nothing_else_outside_the_roots_opens(tree: Tree) -> None:
    tree.write(".claude/skills/profile/SKILL.md", SKILL)
    reference = tree.write(".claude/skills/profile/reference.md", "| column | type |\n")
    settings = tree.settings({"permissions": {"allow": ["Read"]}})
    secret = tree.write("secret.txt", "launch code\n")
    (tree.project / ".claude/skills/profile/escape.md").symlink_to(secret)
    write = dispatch(tree, "Write", file_path=str(reference), content="changed")
    assert write.error_code == "OUTSIDE_ROOTS"
    assert reference.read_text() == "| column | type |\n"
    for path in (settings, secret, tree.project / ".claude/skills/profile/escape.md"):
        result = dispatch(tree, "Read", file_path=str(path))
        assert result.error_code == "OUTSIDE_ROOTS", result.content
        assert "launch code" not in result.content


def test_without_skills_read_stays_inside_the_roots(tree: Tree) -> None:
    other = tree.write("docs/guide.md", "guide\n")
    assert dispatch(tree, "Read", file_path=str(other)).error_code == "OUTSIDE_ROOTS"
    assert Path(other).read_text() == "guide\n"
