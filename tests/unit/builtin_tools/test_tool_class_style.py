"""Tool classes set the attributes `Tool` declares by plain assignment, in one style: the declaration (with its
type) is written once, on `Tool`, and pyright checks every subclass's value against it."""

from __future__ import annotations

import ast
from pathlib import Path

import jupyter_agent

PACKAGE = Path(jupyter_agent.__file__).parent
#: The tool framework (`FunctionTool`) and the built-in tools.
TOOLS = (PACKAGE / "tools", PACKAGE / "builtin_tools")
DECLARED_ON_TOOL = {"name", "description", "kind", "annotations", "rule_field", "rule_kind", "Input"}


def test_tool_subclasses_do_not_redeclare_the_attributes_tool_declares() -> None:
    redeclared: list[str] = []
    subclasses = 0
    for path in (path for root in TOOLS for path in root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef) or node.name == "Tool":
                continue
            if not any(ast.unparse(base).split("[")[0].endswith("Tool") for base in node.bases):
                continue
            subclasses += 1
            redeclared += [
                f"{path.relative_to(PACKAGE)}::{node.name}.{statement.target.id}"
                for statement in node.body
                if isinstance(statement, ast.AnnAssign)
                and isinstance(statement.target, ast.Name)
                and statement.target.id in DECLARED_ON_TOOL
            ]
    assert subclasses >= 25
    assert redeclared == [], "write `name = ...`, not `name: ClassVar[str] = ...`: Tool declares the type"
