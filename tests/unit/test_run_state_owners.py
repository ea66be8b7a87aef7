"""Who may make a service and who may change a run's state, read from the code: a service is made by
`host/build.py` (or by `ToolServices`' own defaults) and never replaced later; a run's state is its `RunScope`'s,
changed only through `RunScope.record`."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

import jupyter_agent
from jupyter_agent.tools.context import ToolServices
from jupyter_agent.tools.scope import RunScope

PACKAGE = Path(jupyter_agent.__file__).parent
SERVICE_FIELDS = set(ToolServices.__dataclass_fields__)
SCOPE_FIELDS = set(RunScope.__dataclass_fields__)


def _package_files() -> dict[str, ast.Module]:
    return {
        str(path.relative_to(PACKAGE)): ast.parse(path.read_text(encoding="utf-8"))
        for path in PACKAGE.rglob("*.py")
    }


def _called_name(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def test_only_host_build_makes_the_services() -> None:
    makers = {
        name
        for name, tree in _package_files().items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and _called_name(node) == "ToolServices"
    }
    assert makers == {"host/build.py"}


def test_no_code_assigns_a_service_or_replaces_the_services() -> None:
    found: list[str] = []
    for name, tree in _package_files().items():
        for node in ast.walk(tree):
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AnnAssign | ast.AugAssign)
                else []
            )
            for target in targets:
                if isinstance(target, ast.Attribute) and (
                    target.attr == "services"
                    or (target.attr in SERVICE_FIELDS and ast.unparse(target.value).endswith("services"))
                ):
                    found.append(f"{name}:{target.lineno}: {ast.unparse(target)}")
    assert found == []


def test_a_runs_state_changes_only_inside_its_scope() -> None:
    """Outside `tools/scope.py`, nothing assigns a field of a run's scope (`ctx.run.policy = …`,
    `scope.running_cell_id = …`): a run's changes are recorded as values (`RunScope.record`)."""
    found: list[str] = []
    for name, tree in _package_files().items():
        if name == "tools/scope.py":
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Assign):
                continue
            for target in node.targets:
                owner = ast.unparse(target.value) if isinstance(target, ast.Attribute) else ""
                if (
                    isinstance(target, ast.Attribute)
                    and target.attr in SCOPE_FIELDS
                    and (owner.endswith(".run") or owner.endswith("scope"))
                ):
                    found.append(f"{name}:{node.lineno}: {ast.unparse(target)}")
    assert found == []


def test_the_services_cannot_be_replaced_once_made() -> None:
    services = ToolServices()
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'shell'"):
        services.shell = object()  # pyright: ignore[reportAttributeAccessIssue]  # what the guard forbids
