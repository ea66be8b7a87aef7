"""The packages' public names are written three times — `__all__`, the lazy map, the TYPE_CHECKING imports —
and must say the same thing; each name must load from the module the map names."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PACKAGES = ("jupyter_agent", "jupyter_agent.agent", "jupyter_agent.tools", "jupyter_agent.builtin_tools.mcp")


def _source(package: str) -> ast.Module:
    module = importlib.import_module(package)
    assert module.__file__ is not None
    return ast.parse(Path(module.__file__).read_text())


def lazy_map(package: str) -> dict[str, str]:
    """The dict given to `lazy_exports`, written inline or as a module-level constant."""
    tree = _source(package)
    constants = {
        target.id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "lazy_exports":
            mapping = node.args[1]
            if isinstance(mapping, ast.Name):
                mapping = constants[mapping.id]
            return ast.literal_eval(mapping)
    raise AssertionError(f"{package} has no lazy_exports call")


def type_checking_imports(package: str) -> dict[str, str]:
    """`name → .module` for the names imported under `if TYPE_CHECKING:` from the package's own modules."""
    found: dict[str, str] = {}
    for node in _source(package).body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom) and statement.level >= 1:
                    for alias in statement.names:
                        found[alias.asname or alias.name] = "." * statement.level + (statement.module or "")
    return found


def defined_here(package: str) -> set[str]:
    names: set[str] = set()
    for node in _source(package).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


@pytest.mark.parametrize("package", PACKAGES)
def test_all_the_lazy_map_and_the_type_checking_imports_agree(package: str) -> None:
    module = importlib.import_module(package)
    lazy = lazy_map(package)
    exported = set(module.__all__)
    assert type_checking_imports(package) == lazy
    assert exported - defined_here(package) == set(lazy)


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_loads_from_the_module_its_map_names(package: str) -> None:
    module = importlib.import_module(package)
    for name, submodule in lazy_map(package).items():
        source = importlib.import_module(submodule, package)
        assert getattr(module, name) is getattr(source, name), f"{package}.{name}"


def test_the_tool_api_is_what_the_docs_use_and_no_internals() -> None:
    tools = importlib.import_module("jupyter_agent.tools")
    for name in ("HookCall", "Rewrite", "Allow", "Ask", "Deny", "ToolResult", "tool"):
        assert name in tools.__all__
    for internal in ("atomic_write", "plan_batches", "run_scheduled", "cap_text", "confine"):
        assert internal not in tools.__all__
        with pytest.raises(AttributeError):
            getattr(tools, internal)


def test_the_tool_api_stays_at_most_25_names() -> None:
    """What a tool or hook author imports from `jupyter_agent.tools`; every other name lives in its module."""
    tools = importlib.import_module("jupyter_agent.tools")
    assert len(tools.__all__) <= 25, sorted(tools.__all__)
