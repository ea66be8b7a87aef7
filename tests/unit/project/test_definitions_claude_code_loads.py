"""Definitions in the shapes real projects use and Claude Code loads (issue #44): agents in subfolders of
`.claude/agents/`, skill names with spaces and capitals, and front matter YAML refuses — a description running
over several unindented lines holding `: ` and `<example>` blocks — or reads as a flow list.

The samples have the shapes of files in anthropics/claude-code `plugins/` (plugin-dev's `skills/plugin-settings`
`name: Plugin Settings`, pr-review-toolkit's agents' multi-line descriptions, `tools: ["Read", "Grep"]`). That
repository is "all rights reserved", so the text here is written for these tests; only the shapes are its.
"""

from __future__ import annotations

from project_tree import Tree

#: The shape of pr-review-toolkit's agents: a plain description whose lines go on unindented, with `: `,
#: `<example>` blocks and literal `\\n`, then more keys; YAML refuses it ("mapping values are not allowed").
SIMPLIFIER = """---
name: tidy-up
description: Use this agent after code was written, to make it simpler.\\n\\nExamples:\\n\\n<example>
Context: The assistant has just added a feature.
user: "Please add a login check"
assistant: "Done. Here it is:"
<commentary>
A chunk of code was written: use the tidy-up agent.
</commentary>
</example>
model: opus
tools: ["Read", "Grep"]
---
You make code simpler.
"""


def test_agents_in_subfolders_of_the_agents_folder_load_as_claude_code_loads_them(tree: Tree) -> None:
    tree.write(".claude/agents/top.md", "---\nname: top\ndescription: At the top\n---\nTop.\n")
    tree.write(".claude/agents/review/security.md", "---\nname: security\ndescription: Security\n---\nS.\n")
    tree.write(".claude/agents/lang/py/typing.md", "---\nname: typing\ndescription: Types\n---\nT.\n")
    claude = tree.claude()
    assert claude.take_warnings() == []
    assert [a.name for a in claude.library.agents] == ["security", "top", "typing"]


def test_a_skill_named_with_spaces_and_capitals_loads_under_its_folder_name(tree: Tree) -> None:
    tree.write(
        ".claude/skills/plugin-settings/SKILL.md",
        "---\nname: Plugin Settings\ndescription: Store a plugin's settings\nversion: 0.1.0\n---\nBody.\n",
    )
    tree.write(".claude/skills/pdf/SKILL.md", "---\nname: PDF\ndescription: Read PDFs\n---\nBody.\n")
    claude = tree.claude()
    assert claude.take_warnings() == []
    assert [(s.name, s.description) for s in claude.library.skills] == [
        ("PDF", "Read PDFs"),
        ("plugin-settings", "Store a plugin's settings"),
    ]


def test_a_description_running_over_lines_with_colons_and_examples_loads_whole(tree: Tree) -> None:
    tree.write(".claude/agents/tidy-up.md", SIMPLIFIER)
    tree.claude().trust()  # so that its `model:` is used
    claude = tree.claude()
    assert claude.take_warnings() == []
    (agent,) = claude.library.agents
    assert agent.description.startswith(
        "Use this agent after code was written, to make it simpler. Examples: "
    )
    assert 'user: "Please add a login check"' in agent.description
    assert agent.description.endswith("</commentary> </example>")
    assert (agent.tools, agent.model, agent.prompt) == (
        ("Read", "Grep"),
        "claude-opus-5-5",
        "You make code simpler.",
    )


def test_a_flow_list_of_tools_in_front_matter_yaml_refuses_is_the_list(tree: Tree) -> None:
    tree.write(
        ".claude/commands/check.md",
        '---\ndescription: Check: the data\nallowed-tools: ["Read", "Bash(git diff:*)"]\n---\nCheck it.\n',
    )
    claude = tree.claude()
    assert claude.take_warnings() == []
    (command,) = claude.library.commands
    assert (command.description, command.allowed_tools) == ("Check: the data", ("Read", "Bash(git diff:*)"))


def test_a_file_that_cannot_be_used_is_still_one_line_naming_it_and_why(tree: Tree) -> None:
    path = tree.write(".claude/agents/sub/broken.md", "---\n: nothing\n\tweird: [\n---\nBody.\n")
    claude = tree.claude()
    (line,) = claude.take_warnings()
    assert line.startswith(f"jupyter_agent: {path}: front matter: not valid YAML")
    assert line.endswith("skipped")
