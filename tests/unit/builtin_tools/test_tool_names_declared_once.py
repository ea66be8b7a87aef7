"""A tool's name is written where the tool is defined; elsewhere the package refers to it through the tool.

The few tables that must name tools without importing them (the opt-in rows, which import their tools lazily;
the permission rule words `Read` and `Edit`; the tools a scope never refuses) are checked here against the tools
themselves, so renaming a tool cannot leave one of them naming nothing.
"""

from __future__ import annotations

import ast
from pathlib import Path

import jupyter_agent
from jupyter_agent.builtin_tools.catalog import OPT_IN_TOOLS, builtin_tools
from jupyter_agent.builtin_tools.jobs import BashOutput, KillShell
from jupyter_agent.builtin_tools.skill import SkillTool
from jupyter_agent.builtin_tools.workflow.task import TASK_TOOL_NAME
from jupyter_agent.permissions.policy import ACCESS_RULE_NAMES, SCOPE_EXEMPT
from jupyter_agent.settings import AgentSettings

PACKAGE = Path(jupyter_agent.__file__).parent
TOOLS = PACKAGE / "builtin_tools"

#: Lines that may name tools as text, and why. Each table is checked against the tools below.
NAMING_TABLES = {
    "builtin_tools/catalog.py": "OPT_IN_TOOLS rows (their tools are imported only when wanted)",
    "permissions/policy.py": "ACCESS_RULE_NAMES and SCOPE_EXEMPT (rule words of the permission syntax)",
    "host/commands.py": "an example rule in `%agent deny`'s help",
    "testing/demo.py": "the scripted model calls tools by name, as a model does",
    "serve/listing.py": "SERVED_TOOLS, what `%agent serve` offers (the test below holds each to a tool)",
    "tools/hook_payloads.py": "PATH_FIELDS and the response shapes, by the names Claude Code's hooks use (the "
    "tools layer cannot import the tools; the test below holds each to a tool)",
    "project/command_context.py": "BANG_TOOL and AT_TOOL, the calls a command's !`cmd` and @file make (held below)",
    "tools/permission_hooks.py": "QUESTION_TOOLS, the tools whose wait is a question (the test below holds it)",
    "permissions/modes.py": "EXIT_PLAN_TOOL and ENTER_PLAN_TOOL: the mode table names the plan tools (permissions sits "
    "below the tools, so it cannot import it; the test below holds the two equal)",
}


def test_the_mode_table_names_the_plan_tool_as_the_tool_names_itself() -> None:
    from jupyter_agent.builtin_tools.workflow.plan import EnterPlanMode, ExitPlanMode
    from jupyter_agent.permissions.modes import ENTER_PLAN_TOOL, EXIT_PLAN_TOOL

    assert ExitPlanMode.name == EXIT_PLAN_TOOL
    assert EnterPlanMode.name == ENTER_PLAN_TOOL


def test_every_tool_the_hook_payloads_name_is_a_tool() -> None:
    from jupyter_agent.project.command_context import AT_TOOL, BANG_TOOL
    from jupyter_agent.tools import hook_payloads
    from jupyter_agent.tools.permission_hooks import QUESTION_TOOLS

    named = (
        set(hook_payloads.PATH_FIELDS)
        | set(hook_payloads.RESPONSE_SHAPES)
        | QUESTION_TOOLS
        | {AT_TOOL, BANG_TOOL}
    )
    assert len(named) >= 12 and named <= _all_tool_names()


def test_every_served_tool_is_a_tool() -> None:
    from jupyter_agent.serve.listing import SERVED_TOOLS

    assert set(SERVED_TOOLS) <= _all_tool_names()


def _all_tool_names() -> set[str]:
    made = [tool for row in OPT_IN_TOOLS for tool in row.make()]
    return {tool.name for tool in [*builtin_tools(), *made, SkillTool([])]} | {TASK_TOOL_NAME}


def _home_of(name: str) -> set[Path]:
    """Where a tool may write its own name: the module that defines it and, for a tool in a subpackage of
    `builtin_tools/`, that subpackage (its helpers name it in their errors)."""
    homes: set[Path] = set()
    for path in TOOLS.rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        if f'name = "{name}"' in source or f'name="{name}"' in source or f'_NAME = "{name}"' in source:
            homes.add(path.parent if path.parent != TOOLS else path)
    return homes


def _names_in_all(tree: ast.Module) -> set[int]:
    """Line numbers inside `__all__ = [...]`: class names that happen to be tool names."""
    lines: set[int] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines


def test_a_tool_name_is_written_only_where_the_tool_is_defined_or_in_a_checked_table() -> None:
    names = _all_tool_names()
    homes = {name: _home_of(name) for name in names}
    assert all(homes.values()), {name: home for name, home in homes.items() if not home}
    stray: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative in NAMING_TABLES:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        exported = _names_in_all(tree)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names):
                continue
            at_home = any(path == home or home in path.parents for home in homes[node.value])
            if not at_home and node.lineno not in exported:
                stray.append(f"{relative}:{node.lineno} {node.value!r}")
    assert stray == [], f"{stray}: refer to the tool (`WebFetch.name`) instead of writing its name again"


def test_every_opt_in_row_names_the_tool_it_makes_and_a_setting_that_exists() -> None:
    settings = AgentSettings.class_traits()
    for row in OPT_IN_TOOLS:
        made = row.make()
        assert made[0].name == row.name
        assert row.setting in settings
    assert {tool.name for tool in OPT_IN_TOOLS[0].make()} == {"Bash", BashOutput.name, KillShell.name}


def test_the_rule_words_and_the_scope_exemptions_are_tools_the_package_has() -> None:
    builtin = {tool.name for tool in builtin_tools()}
    assert set(ACCESS_RULE_NAMES) <= builtin
    assert {SkillTool([]).name} == SCOPE_EXEMPT
