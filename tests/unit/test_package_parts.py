"""Inside the tool framework (`tools/`), the permission and shell analysis (`permissions/`) and the built-in tools
(`builtin_tools/`), and inside each of their subpackages, the parts — a module or a subpackage — import each other
one way only: no loop of parts, at run time or in annotations, and no part importing its own package's
`__init__`. (`test_layers.py` holds the arrows between the packages, and no loop of modules anywhere.)"""

from __future__ import annotations

import functools

import pytest
from test_layers import _graph as _read_graph

#: The import graph, read once for all the cases here.
_graph = functools.cache(_read_graph)

PACKAGES = ("jupyter_agent.tools", "jupyter_agent.permissions", "jupyter_agent.builtin_tools")


def _packages() -> list[str]:
    modules = set(_graph())
    return sorted(
        m for m in modules if m.startswith(PACKAGES) and any(n.startswith(m + ".") for n in modules)
    )


def _part(package: str, module: str) -> str | None:
    """`files` for `jupyter_agent.builtin_tools.files.read` in `jupyter_agent.builtin_tools`; None outside it."""
    return module[len(package) + 1 :].split(".")[0] if module.startswith(package + ".") else None


def _edges(package: str, *, type_checking: bool) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for module, targets in _graph(type_checking=type_checking).items():
        if (source := _part(package, module)) is not None:
            edges.setdefault(source, set())
            edges[source] |= {t for t in map(lambda t: _part(package, t), targets) if t not in (None, source)}
    return edges


def _loops(edges: dict[str, set[str]]) -> set[frozenset[str]]:
    """Each pair of parts that reach each other, directly or round a loop."""

    def reach(start: str) -> set[str]:
        seen: set[str] = set()
        todo = [start]
        while todo:
            for target in edges.get(todo.pop(), set()) - seen:
                seen.add(target)
                todo.append(target)
        return seen

    reached = {part: reach(part) for part in edges}
    return {frozenset({a, b}) for a in edges for b in reached[a] if a != b and a in reached.get(b, set())}


def test_the_three_packages_and_their_subpackages_are_found() -> None:
    packages = _packages()
    assert set(PACKAGES) <= set(packages)
    assert "jupyter_agent.builtin_tools.files" in packages
    assert "jupyter_agent.builtin_tools.kernel.journal" in packages


@pytest.mark.parametrize("package", _packages())
def test_no_loop_of_parts_at_run_time(package: str) -> None:
    assert _loops(_edges(package, type_checking=False)) == set()


@pytest.mark.parametrize("package", _packages())
def test_annotations_close_no_loop(package: str) -> None:
    assert _loops(_edges(package, type_checking=True)) == set()


@pytest.mark.parametrize("package", _packages())
def test_no_part_imports_its_own_package(package: str) -> None:
    """A package's `__init__` sits above its parts (it gathers them); a part importing it points back up."""
    graph = _graph()
    assert (
        sorted(m for m, targets in graph.items() if _part(package, m) is not None and package in targets)
        == []
    )


def test_the_loop_check_sees_the_loop_the_split_removed() -> None:
    """The file tools once asked `notebook/common.py` about `.ipynb` paths while the notebook tools used
    `files/diff.py`: the two parts reached each other."""
    edges = {"files": {"notebook"}, "notebook": {"files", "kernel"}, "kernel": set()}
    assert _loops(edges) == {frozenset({"files", "notebook"})}
    assert _loops({"files": set(), "notebook": {"files", "kernel"}, "kernel": set()}) == set()
