"""Skills, sub-agents and commands from `.claude/` and `~/.claude/`: what is loaded, what a bad file says, the Skill
tool (its description, its body on demand, its files, its allowed-tools) and `%agent /name args`."""

from __future__ import annotations

import asyncio
import json

import pytest
from project_tree import Tree

from jupyter_agent.builtin_tools.skill import SkillInput, SkillTool, with_arguments
from jupyter_agent.builtin_tools.workflow import TaskTool
from jupyter_agent.project.slash import UnknownCommand, slash_run
from jupyter_agent.tools import PermissionPolicy, Sandbox, ToolContext
from jupyter_agent.tools.scope import RunScope

SUMMARIZE = """---
name: summarize
description: Summarise a CSV file's columns and missing values
allowed-tools: Read, Grep
---
# Summarise

Read $ARGUMENTS and report each column's type and missing values. See reference.md for the format.
"""


@pytest.fixture
def library_tree(tree: Tree) -> Tree:
    tree.write(".claude/skills/summarize/SKILL.md", SUMMARIZE)
    tree.write(".claude/skills/summarize/reference.md", "| column | type | missing |\n")
    tree.write(".claude/skills/summarize/scripts/check.py", "print('ok')\n")
    tree.write(".claude/skills/plot/SKILL.md", "---\ndescription: Plot a column\n---\nUse matplotlib.\n")
    tree.write(
        ".claude/agents/reviewer.md",
        "---\nname: reviewer\ndescription: Reviews a change for bugs\ntools: Read, Grep, Glob\nmodel: haiku\n---\n"
        "You are a careful code reviewer. Report bugs with file and line.\n",
    )
    tree.write(
        ".claude/commands/review.md",
        "---\ndescription: Review a file\nallowed-tools: Read\nmodel: opus\nargument-hint: FILE [FOCUS]\n---\n"
        "Review $1 with a focus on $2.\n",
    )
    tree.write(".claude/commands/tidy.md", "Tidy the notebook.\n")
    tree.claude().trust()  # a trusted project's `model:` is used (an untrusted one's is not: test_project_confined)
    return tree


def test_skills_agents_and_commands_load_with_their_front_matter(library_tree: Tree) -> None:
    library = library_tree.claude().library
    assert [(s.name, s.description, s.allowed_tools) for s in library.skills] == [
        ("plot", "Plot a column", None),
        ("summarize", "Summarise a CSV file's columns and missing values", ("Read", "Grep")),
    ]
    (agent,) = library.agents
    assert (agent.name, agent.tools, agent.model) == (
        "reviewer",
        ("Read", "Grep", "Glob"),
        "claude-haiku-5-5",
    )
    assert agent.prompt == "You are a careful code reviewer. Report bugs with file and line."
    review, tidy = library.commands
    assert (review.name, review.allowed_tools, review.model, review.argument_hint) == (
        "review",
        ("Read",),
        "claude-opus-5-5",
        "FILE [FOCUS]",
    )
    assert (tidy.description, tidy.allowed_tools) == ("Tidy the notebook.", None)
    assert library.warnings == ()


def test_the_projects_definition_wins_over_the_users_of_the_same_name(library_tree: Tree) -> None:
    library_tree.write(".claude/commands/tidy.md", "The user's tidy.\n", base=library_tree.home)
    library_tree.write(".claude/commands/mine.md", "Only mine.\n", base=library_tree.home)
    commands = {c.name: c for c in library_tree.claude().library.commands}
    assert commands["tidy"].body == "Tidy the notebook." and commands["tidy"].where == "project"
    assert commands["mine"].where == "user"


def test_an_unusable_definition_is_one_warning_naming_the_file_and_the_key(library_tree: Tree) -> None:
    bad_yaml = library_tree.write(".claude/agents/broken.md", "---\nname: [unclosed\n{oops\n---\nbody\n")
    nameless = library_tree.write(".claude/skills/vague/SKILL.md", "---\nname: vague\n---\n# Vague\n")
    claude = library_tree.claude()
    assert claude.take_warnings() == [
        f"jupyter_agent: {nameless}: description: missing, and the body has no paragraph to use instead: the "
        "model cannot tell when to use the skill; skipped",
        # read as Claude Code reads what YAML refuses: `{oops` goes on with the name, which is no name
        f"jupyter_agent: {bad_yaml}: description: missing: the model cannot tell when to use the agent; skipped",
    ]
    assert [a.name for a in claude.library.agents] == ["reviewer"]


def test_a_skill_without_a_description_is_described_by_its_first_paragraph_as_in_claude_code(
    library_tree: Tree,
) -> None:
    library_tree.write(
        ".claude/skills/clean/SKILL.md",
        "---\nname: clean\n---\n# Cleaning\n\nDrop empty rows\nand fix dtypes.\n\n## Steps\n1. Load.\n",
    )
    skills = {s.name: s for s in library_tree.claude().library.skills}
    assert skills["clean"].description == "Drop empty rows and fix dtypes."


def test_the_skill_tool_lists_the_skills_when_called_without_a_name_and_loads_a_body_on_demand(
    library_tree: Tree,
) -> None:
    (tool,) = [t for t in library_tree.claude().library.tools if isinstance(t, SkillTool)]
    assert "summarize" not in tool.description  # the repository's text stays out of the tool list
    listing = asyncio.run(tool.run(SkillInput(), ToolContext(sandbox=Sandbox.at(library_tree.project))))
    assert listing.content == (
        "Available skills:\n- plot: Plot a column (project)\n"
        "- summarize: Summarise a CSV file's columns and missing values (project)"
    )
    policy = PermissionPolicy()
    ctx = ToolContext(sandbox=Sandbox.at(library_tree.project), run=RunScope(policy=policy))
    result = asyncio.run(tool.run(SkillInput(skill="summarize", args="sales.csv"), ctx))
    skill_dir = library_tree.project / ".claude" / "skills" / "summarize"
    assert result.content.splitlines() == [
        f"Base directory for this skill: {skill_dir}",
        "",
        "# Summarise",
        "",
        "Read sales.csv and report each column's type and missing values. See reference.md for the format.",
        "",
        "Other files of this skill (read one with Read at its path under the base directory, or with "
        'Skill(skill="summarize/<file>")):',
        "- reference.md",
        "- scripts/check.py",
        "",
        "While this skill is active only these tools run: Read, Grep.",
    ]
    assert policy.scope is not None and policy.scope.owner == "the skill 'summarize'"
    reference = asyncio.run(tool.run(SkillInput(skill="summarize/reference.md"), ctx))
    assert reference.content == "| column | type | missing |\n"


def test_a_skill_file_outside_the_skill_is_refused_even_through_a_symlink(library_tree: Tree) -> None:
    library_tree.write("secret.txt", "swordfish\n")
    (library_tree.project / ".claude/skills/summarize/leak.md").symlink_to(
        library_tree.project / "secret.txt"
    )
    (tool,) = [t for t in library_tree.claude().library.tools if isinstance(t, SkillTool)]
    ctx = ToolContext(sandbox=Sandbox.at(library_tree.project))
    from jupyter_agent.base.errors import ToolError

    for name in ("summarize/leak.md", "summarize/../../../secret.txt"):
        with pytest.raises(ToolError, match="is not inside the skill 'summarize'"):
            asyncio.run(tool.run(SkillInput(skill=name), ctx))
    with pytest.raises(ToolError, match="there is no skill named 'nope'; the skills are: plot, summarize"):
        asyncio.run(tool.run(SkillInput(skill="nope"), ctx))


def test_the_project_task_tool_offers_the_custom_agent_types(library_tree: Tree) -> None:
    (task,) = [t for t in library_tree.claude().library.tools if isinstance(t, TaskTool)]
    schema = task.to_param()["input_schema"]["properties"]["subagent_type"]
    assert schema["enum"] == ["Explore", "general-purpose", "Plan", "reviewer"]
    assert '- "reviewer": Reviews a change for bugs' in task.description


def test_the_tools_of_a_library_are_built_once_so_their_definitions_never_change(library_tree: Tree) -> None:
    claude = library_tree.claude()
    first = [json.dumps(t.to_param()) for t in claude.library.tools]
    library_tree.write(".claude/skills/late/SKILL.md", "---\ndescription: Added later\n---\nx\n")
    assert [json.dumps(t.to_param()) for t in claude.library.tools] == first
    claude.reload()  # %agent reset
    (tool,) = [t for t in claude.library.tools if isinstance(t, SkillTool)]
    assert "late" in tool.skills


@pytest.mark.parametrize(
    ("body", "args", "expected"),
    [
        pytest.param("Fix issue #$ARGUMENTS.", "123", "Fix issue #123.", id="$ARGUMENTS"),
        pytest.param(
            "Review $1 for $2.", 'app.py "thread safety"', "Review app.py for thread safety.", id="$1 and $2"
        ),
        pytest.param("Review $1.", "", "Review .", id="a missing argument is empty"),
        pytest.param(
            "Tidy up.",
            "cells 3-5",
            "Tidy up.\n\nARGUMENTS: cells 3-5",
            id="arguments with no place are appended",
        ),
    ],
)
def test_arguments_fill_a_command(body: str, args: str, expected: str) -> None:
    assert with_arguments(body, args) == expected


def test_a_slash_command_runs_its_body_with_its_tools_and_model(library_tree: Tree) -> None:
    library = library_tree.claude().library
    run = slash_run("review", 'loader.py "missing months"', library)
    assert run.request == "Review loader.py with a focus on missing months."
    assert (run.allowed_tools, run.owner, run.model) == (("Read",), "the command /review", "claude-opus-5-5")
    skill = slash_run("summarize", "sales.csv", library)
    assert skill.request.startswith("The user invoked the skill 'summarize' with arguments. Base directory")
    assert "Read sales.csv and report" in skill.request
    assert (skill.allowed_tools, skill.owner) == (("Read", "Grep"), "the skill 'summarize'")
    with pytest.raises(UnknownCommand, match="there are: /plot, /review, /summarize, /tidy"):
        slash_run("nope", "", library)
