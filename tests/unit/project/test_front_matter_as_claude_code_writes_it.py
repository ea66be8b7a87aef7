"""Skills, sub-agents and commands whose front matter is written as Claude Code's documentation and real
projects write it, though YAML refuses it or reads it otherwise: they load, with the values as written."""

from __future__ import annotations

from project_tree import Tree

FIX_ISSUE = """---
argument-hint: [pr-number] [priority] [assignee]
description: Review a pull request
allowed-tools: Read, Grep
---
Review PR #$1 with priority $2 and assign to $3.
"""

AGENT = """---
name: data-checker
description: Use this agent when: the user asks whether a dataset is complete. Example: "is March there?"
tools:
  - Read
  - Grep
model: haiku
---
You check datasets.
"""


def test_a_command_with_the_argument_hint_of_claude_codes_docs_loads_with_the_hint_as_written(
    tree: Tree,
) -> None:
    tree.write(".claude/commands/fix-issue.md", FIX_ISSUE)
    tree.write(".claude/commands/commit.md", "---\nargument-hint: [message]\n---\nCommit with $ARGUMENTS\n")
    claude = tree.claude()
    assert claude.take_warnings() == []
    commit, fix = claude.library.commands
    assert (fix.name, fix.argument_hint, fix.description, fix.allowed_tools) == (
        "fix-issue",
        "[pr-number] [priority] [assignee]",
        "Review a pull request",
        ("Read", "Grep"),
    )
    assert fix.body == "Review PR #$1 with priority $2 and assign to $3."
    assert commit.argument_hint == "[message]"


def test_an_agent_whose_description_has_unquoted_colons_loads(tree: Tree) -> None:
    tree.write(".claude/agents/data-checker.md", AGENT)
    tree.claude().trust()  # so that its `model:` is used
    claude = tree.claude()
    assert claude.take_warnings() == []
    (agent,) = claude.library.agents
    assert agent.description == (
        'Use this agent when: the user asks whether a dataset is complete. Example: "is March there?"'
    )
    assert (agent.tools, agent.model, agent.prompt) == (
        ("Read", "Grep"),
        "claude-haiku-5-5",
        "You check datasets.",
    )


def test_a_skill_saved_with_a_byte_order_mark_keeps_its_front_matter(tree: Tree) -> None:
    tree.write(
        ".claude/skills/tidy/SKILL.md",
        "\ufeff---\r\nname: tidy\r\ndescription: Tidy a notebook\r\nallowed-tools: Read\r\n---\r\nBody\r\n",
    )
    claude = tree.claude()
    assert claude.take_warnings() == []
    (skill,) = claude.library.skills
    assert (skill.name, skill.description, skill.allowed_tools) == ("tidy", "Tidy a notebook", ("Read",))
