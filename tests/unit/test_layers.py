"""The package's layers, read from docs/architecture.md's table: a module imports only from its own layer or
below, and no two modules import each other, directly or round a loop."""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Collection, Mapping
from pathlib import Path

import jupyter_agent

PACKAGE = Path(jupyter_agent.__file__).parent
ARCHITECTURE = PACKAGE.parent / "docs" / "architecture.md"


def _table_name(cell: str) -> str:
    """`magics.py` → "magics", `host/` → "host", `host/commands.py` → "host.commands", `__init__.py` → ""."""
    name = cell.removesuffix("/").removesuffix(".py").replace("/", ".")
    return name.removesuffix(".__init__") if name != "__init__" else ""


def _layers_from_the_document() -> tuple[frozenset[str], ...]:
    """The "## Layers" table, lowest layer first: one row a layer, its modules in backticks in the 2nd column."""
    section = ARCHITECTURE.read_text(encoding="utf-8").split("## Layers", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")][2:]  # past the header and the rule
    return tuple(
        frozenset(map(_table_name, re.findall(r"`([^`]+)`", row.split("|")[2]))) for row in reversed(rows)
    )


#: Lowest first. A top-level module or subpackage of `jupyter_agent`, by name; `""` is the package itself. A
#: dotted name places one module apart from its package: the `%agent` subcommands drive the `KernelAgent`.
LAYERS = _layers_from_the_document()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _modules() -> frozenset[str]:
    return frozenset(_module_name(path) for path in _sources())


def _sources() -> list[Path]:
    return [path for path in PACKAGE.rglob("*.py") if "labextension" not in path.relative_to(PACKAGE).parts]


def _imports(path: Path, *, type_checking: bool) -> set[str]:
    """The `jupyter_agent` modules this file imports, at the top or inside functions; with `type_checking`,
    also those under `if TYPE_CHECKING:` (a layer may not name a layer above it even in annotations)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: set[int] = set()
    if not type_checking:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
                skipped |= {id(inner) for inner in ast.walk(node)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            # `from . import scope` imports the module `scope`; `from .scope import RunScope`, `scope` alone
            named = {f"{target}.{alias.name}" for alias in node.names}
            found |= named & _modules() if named <= _modules() else (named & _modules()) | {target}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {t for t in found if t == "jupyter_agent" or t.startswith("jupyter_agent.")}


def _graph(*, type_checking: bool = True) -> dict[str, set[str]]:
    return {_module_name(path): _imports(path, type_checking=type_checking) for path in _sources()}


def _layer(module: str) -> int:
    parts = module.split(".")[1:]
    for size in range(len(parts), 0, -1):
        for i, names in enumerate(LAYERS):
            if ".".join(parts[:size]) in names:
                return i
    return next(i for i, names in enumerate(LAYERS) if "" in names)


def test_every_part_of_the_package_has_a_layer() -> None:
    tops = {path.stem if path.is_file() else path.name for path in PACKAGE.iterdir()}
    tops = {t for t in tops if t not in ("__init__", "__pycache__", "labextension") and not t.startswith(".")}
    placed = set().union(*LAYERS)
    assert tops <= placed, f"add {sorted(tops - placed)} to the layer table in docs/architecture.md"


def test_the_layer_table_names_only_what_exists_and_each_once() -> None:
    assert len(LAYERS) >= 10
    names = [name for layer in LAYERS for name in layer]
    assert len(names) == len(set(names))
    for name in names:
        path = PACKAGE.joinpath(*name.split(".")) if name else PACKAGE / "__init__.py"
        assert path.is_dir() or path.with_suffix(".py").is_file() or path.is_file(), (
            f"no {name!r} in the package"
        )


def _rows() -> list[tuple[frozenset[str], str]]:
    """Each row's packages and modules (2nd column) with its job (3rd column), which names their parts."""
    section = ARCHITECTURE.read_text(encoding="utf-8").split("## Layers", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|") for line in section.splitlines() if line.startswith("|")][2:]
    return [(frozenset(re.findall(r"`([^`]+)`", row[2])), row[3]) for row in rows]


def test_every_folder_of_the_package_is_named_in_the_layer_table() -> None:
    """A subpackage is named in its layer's row (`strict/` in `testing/`'s, `kernel/journal/` in `builtin_tools/`'s)."""
    named = {name for modules, job in _rows() for name in (*modules, *re.findall(r"`([^`]+/)`", job))}
    folders = sorted(
        path.parent.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("__init__.py")
        if path.parent != PACKAGE and "labextension" not in path.relative_to(PACKAGE).parts
    )
    missing = [f for f in folders if not any(f + "/" == n or (f + "/").endswith("/" + n) for n in named)]
    assert missing == [], f"name {missing} in the layer table of docs/architecture.md"


def test_every_module_the_layer_table_names_exists_in_its_row() -> None:
    """`shell.py` in the built-in tools' row is `builtin_tools/shell.py`: a module renamed or moved is renamed in
    the table too."""
    absent: list[str] = []
    for modules, job in _rows():
        packages = [PACKAGE, *(PACKAGE / m for m in modules if m.endswith("/"))]
        for name in re.findall(r"`([\w/]+(?:\.py|/))`", job):
            if not any((package / name).exists() for package in packages):
                absent.append(name)
    assert absent == []


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    upward = sorted(
        f"{module} imports {target}"
        for module, targets in _graph().items()
        for target in targets
        if _layer(target) > _layer(module)
    )
    assert upward == []


def test_the_base_and_the_notebook_layer_do_not_import_the_tools() -> None:
    """The reason `base/` exists: `notebook/` and `tools/` must not need each other both ways."""
    graph = _graph()
    below_tools = [m for m in graph if m.startswith(("jupyter_agent.base", "jupyter_agent.notebook"))]
    assert below_tools
    assert not [
        (m, t)
        for m in below_tools
        for t in graph[m]
        if t.startswith(("jupyter_agent.tools", "jupyter_agent.agent"))
    ]


def _cycles(edges: Mapping[str, Collection[str]]) -> list[list[str]]:
    """A loop through each back edge a depth-first walk of `edges` meets (none: there is no loop at all)."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    cycles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(edges.get(module, ())):
            if state.get(target) == 1:
                cycles.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module, [module])
    return cycles


def test_there_is_no_import_cycle_between_modules() -> None:
    """Annotation-only imports (`if TYPE_CHECKING:`) and imports inside functions count: two modules whose types
    name each other are one part drawn as two. Where only types are shared, a Protocol on the user's side
    (`agent/context_fit.FittedRun`) or a small module both import (`host/page_comm.py`) breaks the loop."""
    graph = _graph(type_checking=True)
    modules = set(graph)

    def resolve(target: str) -> str:
        while target not in modules and "." in target:
            target = target.rpartition(".")[0]
        return target

    edges = {m: {resolve(t) for t in ts} & modules - {m} for m, ts in graph.items()}
    assert _cycles(edges) == []


def test_the_cycle_check_sees_a_loop_round_three_modules_and_an_annotation_loop() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert _cycles({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []


def test_the_graph_holds_annotation_imports_and_imports_inside_functions() -> None:
    scope = _imports(PACKAGE / "tools" / "scope.py", type_checking=True)
    assert "jupyter_agent.notebook.frontend" in scope  # under `if TYPE_CHECKING:`
    assert "jupyter_agent.agent.loop" in _imports(PACKAGE / "agent" / "subagent.py", type_checking=False)
    # `from . import reference` is an arrow to the module, not only to its package
    assert "jupyter_agent.host.reference" in _imports(PACKAGE / "host" / "commands.py", type_checking=False)
