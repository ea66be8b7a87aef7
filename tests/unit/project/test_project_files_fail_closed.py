"""A hostile repository's `.claude/` cannot read outside the project, pick a pricier model, flood every request
with listings, or silently replace your own command — and a settings file with a byte-order mark still applies.

The layouts are the ones a cloned repository can carry: relative symlinks (git keeps them) from `.claude/` to a
credentials file outside the roots, laid out before the project is read.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from project_tree import Tree

from jupyter_agent.base.errors import ToolError
from jupyter_agent.builtin_tools.listing import MAX_ENTRY_CHARS, MAX_LISTED, MAX_LISTING_CHARS
from jupyter_agent.builtin_tools.skill import SkillInput, SkillTool
from jupyter_agent.builtin_tools.workflow import TaskTool
from jupyter_agent.host.project_texts import skills_report
from jupyter_agent.project.setup import project_setup
from jupyter_agent.project.slash import slash_run
from jupyter_agent.tools import Sandbox, ToolContext

SECRET = "aws_secret_access_key = wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY"


@pytest.fixture
def credentials(tree: Tree) -> Path:
    """`~/.aws/credentials` of the person running the notebook: outside the project and its roots."""
    path = tree.home / ".aws" / "credentials"
    path.parent.mkdir()
    path.write_text(f"[default]\n{SECRET}\n", encoding="utf-8")
    return path


def link(at: Path, target: str) -> Path:
    """A relative symlink `at -> target`, as a repository carries one."""
    at.parent.mkdir(parents=True, exist_ok=True)
    at.symlink_to(target)
    return at


def listed(tool: SkillTool) -> str:
    """What the model reads of the skills: `Skill` without a name (the conversation's opening holds the same)."""
    ctx = ToolContext(sandbox=Sandbox.at("/tmp"))
    return asyncio.run(tool.run(SkillInput(), ctx)).content


def everything_loaded(tree: Tree) -> str:
    """Every text the project's definitions put in front of the model or run as a request."""
    library = tree.claude().library
    texts = [tool.description for tool in library.tools]
    texts += [listed(tool) for tool in library.tools if isinstance(tool, SkillTool)]
    texts += [c.body for c in library.commands] + [a.prompt for a in library.agents]
    return "\n".join(texts)


def test_a_skill_linked_to_a_credentials_file_outside_the_roots_is_not_read(
    tree: Tree, credentials: Path
) -> None:
    skill = link(tree.project / ".claude/skills/x/SKILL.md", "../../../../home/.aws/credentials")
    assert skill.read_text(encoding="utf-8").startswith("[default]")  # the link works: the layout is real
    claude = tree.claude()
    assert claude.library.skills == ()
    assert SECRET not in everything_loaded(tree)
    (warning,) = claude.take_warnings()
    assert warning.startswith(f"jupyter_agent: {skill}: (file): the file '{skill}' is outside the folders")
    assert f"it leads to '{credentials}' through a symlink" in warning


def test_commands_and_agents_linked_outside_the_roots_are_not_read(tree: Tree, credentials: Path) -> None:
    link(tree.project / ".claude/commands/deploy.md", "../../../home/.aws/credentials")
    link(tree.project / ".claude/agents/helper.md", "../../../home/.aws/credentials")
    library = tree.claude().library
    assert (library.commands, library.agents) == ((), ())
    assert SECRET not in everything_loaded(tree)


def test_a_skill_folder_linked_outside_the_roots_is_not_read(tree: Tree) -> None:
    outside = tree.home / "notes" / "x"
    outside.mkdir(parents=True)
    (outside / "SKILL.md").write_text(f"---\ndescription: {SECRET}\n---\nbody\n", encoding="utf-8")
    link(tree.project / ".claude/skills/x", "../../../home/notes/x")
    assert tree.claude().library.skills == ()
    assert SECRET not in everything_loaded(tree)


def test_a_link_that_stays_inside_the_project_is_read(tree: Tree) -> None:
    tree.write("docs/review.md", "---\ndescription: Review a file\n---\nReview $1.\n")
    link(tree.project / ".claude/commands/review.md", "../../docs/review.md")
    (command,) = tree.claude().library.commands
    assert command.body == "Review $1."


def test_a_skill_swapped_for_a_link_after_it_was_loaded_is_refused_when_used(
    tree: Tree, credentials: Path
) -> None:
    skill_file = tree.write(".claude/skills/x/SKILL.md", "---\ndescription: Tidy a notebook\n---\nTidy it.\n")
    (tool,) = [t for t in tree.claude().library.tools if isinstance(t, SkillTool)]
    skill_file.unlink()
    link(skill_file, "../../../../home/.aws/credentials")  # e.g. a `git checkout` of another branch
    ctx = ToolContext(sandbox=Sandbox.at(tree.project))
    with pytest.raises(ToolError) as refused:
        asyncio.run(tool.run(SkillInput(skill="x"), ctx))
    assert refused.value.code == "OUTSIDE_ROOTS"
    assert SECRET not in refused.value.message


def test_your_own_commands_folder_may_be_a_link_to_your_dotfiles_but_a_file_may_not_lead_out(
    tree: Tree, credentials: Path
) -> None:
    dotfiles = tree.home / "dotfiles" / "commands"
    dotfiles.mkdir(parents=True)
    (dotfiles / "mine.md").write_text("Only mine.\n", encoding="utf-8")
    link(tree.home / ".claude" / "commands", "../dotfiles/commands")
    link(dotfiles / "leak.md", "../../.aws/credentials")
    claude = tree.claude()
    assert [c.name for c in claude.library.commands] == ["mine"]
    assert SECRET not in everything_loaded(tree)
    assert any("leak.md" in line and "outside the folders" in line for line in claude.take_warnings())


def test_a_settings_file_linked_outside_the_project_is_not_read(tree: Tree, credentials: Path) -> None:
    settings = link(tree.project / ".claude/settings.local.json", "../../home/.aws/credentials")
    claude = tree.claude()
    assert claude.settings.rules("deny") == []
    (warning,) = claude.take_warnings()
    assert warning.startswith(
        f"jupyter_agent: {settings}: (file): the file '{settings}' is outside the folders"
    )
    assert SECRET not in warning


def test_a_settings_file_saved_with_a_byte_order_mark_applies_like_any_other(tree: Tree) -> None:
    path = tree.project / ".claude" / "settings.local.json"
    path.parent.mkdir()
    path.write_bytes('\ufeff{"permissions": {"deny": ["Read(secrets/**)"]}}\r\n'.encode())
    claude = tree.claude()
    assert claude.take_warnings() == []
    assert [rule.text for rule in claude.settings.rules("deny")] == ["Read(secrets/**)"]
    assert [str(rule) for rule in project_setup(claude).deny] == [f"Read({tree.project}/secrets/**)"]


AGENT = "---\nname: reviewer\ndescription: Reviews a change\nmodel: opus\n---\nReview it.\n"
COMMAND = "---\ndescription: Review a file\nmodel: opus\n---\nReview $1.\n"


def test_an_untrusted_project_does_not_choose_the_model_of_its_agents_and_commands(tree: Tree) -> None:
    agent_file = tree.write(".claude/agents/reviewer.md", AGENT)
    command_file = tree.write(".claude/commands/review.md", COMMAND)
    claude = tree.claude()
    (agent,), (command,) = claude.library.agents, claude.library.commands
    assert (agent.model, command.model, slash_run("review", "a.py", claude.library).model) == (
        None,
        None,
        None,
    )
    said = "\n".join(claude.take_warnings())
    for path in (agent_file, command_file):
        assert (
            f"jupyter_agent: {path}: model: 'opus' is not used: an untrusted project does not choose the model"
            in said
        )


def test_a_trusted_project_and_your_own_files_choose_their_model(tree: Tree) -> None:
    tree.write(".claude/agents/reviewer.md", AGENT)
    tree.write(".claude/commands/mine.md", COMMAND, base=tree.home)
    untrusted = tree.claude()
    assert [c.model for c in untrusted.library.commands] == ["claude-opus-5-5"]  # yours, always
    assert "the `model` of its sub-agents and commands after %agent reset" in untrusted.trust()
    untrusted.reload()
    assert [a.model for a in untrusted.library.agents] == ["claude-opus-5-5"]
    assert untrusted.take_warnings() == []


def test_hundreds_of_skills_and_agents_are_capped_in_every_request_with_a_line_saying_how_many(
    tree: Tree,
) -> None:
    long = "x" * 1000
    for n in range(300):
        tree.write(f".claude/skills/s{n:03}/SKILL.md", f"---\ndescription: skill {n} {long}\n---\nbody\n")
        tree.write(f".claude/agents/a{n:03}.md", f"---\ndescription: agent {n} {long}\n---\nbody\n")
    claude = tree.claude()
    skill_tool, task_tool = claude.library.tools
    assert isinstance(skill_tool, SkillTool) and isinstance(task_tool, TaskTool)
    for text, noun in ((listed(skill_tool), "skills"), (task_tool.description, "sub-agents")):
        assert len(text) < MAX_LISTING_CHARS + 2_000, len(text)
        kept = len(re.findall(r'^- "?[sa]\d{3}"?: ', text, flags=re.MULTILINE))
        assert 0 < kept < MAX_LISTED
        assert text.endswith(
            f"- ({300 - kept} more {noun} not listed: over {MAX_LISTED} entries or {MAX_LISTING_CHARS:,} "
            "characters)"
        )
    assert "s299" not in listed(skill_tool)
    assert len(task_tool.custom) < 300 and "a299" not in task_tool.types
    assert len(claude.library.skills) == 300  # `%agent /s299` still runs it
    said = claude.take_warnings()
    assert any(line.startswith("jupyter_agent: 300 skills: only the first ") for line in said)
    assert any(line.startswith("jupyter_agent: 300 sub-agents: only the first ") for line in said)


def test_a_project_command_that_replaces_yours_says_so_in_agent_skills(tree: Tree) -> None:
    mine = tree.write(".claude/commands/tidy.md", "My tidy.\n", base=tree.home)
    theirs = tree.write(".claude/commands/tidy.md", "Their tidy.\n")
    tree.write(".claude/commands/only-mine.md", "Only mine.\n", base=tree.home)
    claude = tree.claude()
    hidden = claude.library.shadowing("command", "tidy")
    assert hidden is not None and (hidden.by, hidden.hidden, hidden.hidden_where) == (theirs, mine, "user")
    assert claude.library.shadowing("command", "only-mine") is None
    text = skills_report(claude, []).text
    assert f"/tidy                    command (project) · replaces the user's ({mine}): Their tidy." in text
    assert "/only-mine               command (user): Only mine." in text


def test_a_listing_holds_at_most_a_hundred_entries_each_cut_to_its_own_cap(tree: Tree) -> None:
    for n in range(300):
        tree.write(f".claude/skills/s{n:03}/SKILL.md", f"---\ndescription: skill {n}\n---\nbody\n")
    tree.write(".claude/skills/a-long/SKILL.md", f"---\ndescription: {'y' * 5000}\n---\nbody\n")
    (tool,) = tree.claude().library.tools
    assert isinstance(tool, SkillTool)
    text = listed(tool)
    assert len(re.findall(r"^- (?:s\d{3}|a-long): ", text, flags=re.MULTILINE)) == MAX_LISTED
    assert text.endswith(f"- (201 more skills not listed: over {MAX_LISTED} entries or 16,000 characters)")
    (long_line,) = [line for line in text.splitlines() if line.startswith("- a-long: ")]
    assert len(long_line) <= MAX_ENTRY_CHARS + 1


def test_the_deepest_projects_command_is_named_as_the_one_that_replaces_yours(tree: Tree) -> None:
    mine = tree.write(".claude/commands/tidy.md", "My tidy.\n", base=tree.home)
    tree.write(".claude/commands/tidy.md", "The project's tidy.\n")
    deeper = tree.write("analysis/.claude/commands/tidy.md", "The analysis folder's tidy.\n")
    library = tree.claude(tree.project / "analysis").library
    hidden = library.shadowing("command", "tidy")
    assert hidden is not None and (hidden.by, hidden.hidden) == (deeper, mine)
    assert [c.body for c in library.commands] == ["The analysis folder's tidy."]


def test_a_claude_json_that_leads_out_of_your_home_does_not_trust_a_project(tree: Tree) -> None:
    elsewhere = tree.home.parent / "elsewhere.json"
    elsewhere.write_text(f'{{"projects": {{"{tree.project}": {{"hasTrustDialogAccepted": true}}}}}}')
    (tree.home / ".claude.json").symlink_to(elsewhere)
    assert tree.claude().settings.trusted is None
