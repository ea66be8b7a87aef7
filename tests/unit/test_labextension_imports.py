"""The labextension's modules (`labextension/src/*.ts`) import each other one way only: no loop, type-only
imports (`import type`) included. `pending.ts` and `review.ts` once shared `diffLines` by importing each other;
it is `diffLines.ts` now."""

from __future__ import annotations

import re
from pathlib import Path

from test_layers import _cycles

SOURCE = Path(__file__).resolve().parents[2] / "labextension" / "src"

#: `import … from './x'`, `export … from './x'` and `import('./x')`, an import over several lines included.
_RELATIVE = re.compile(r"""(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"]\./([\w.-]+)['"]""", re.MULTILINE)


def _imports(text: str) -> set[str]:
    return {name.removesuffix(".ts") for name in _RELATIVE.findall(text)}


def _graph() -> dict[str, set[str]]:
    return {path.stem: _imports(path.read_text(encoding="utf-8")) for path in sorted(SOURCE.glob("*.ts"))}


def test_the_modules_and_their_imports_are_read() -> None:
    graph = _graph()
    assert {"bridge", "review", "pending", "diffLines"} <= set(graph)
    assert {"ops", "protocol", "review"} <= graph[
        "bridge"
    ]  # `} from './protocol';` closes a multi-line import
    assert all(target in graph for targets in graph.values() for target in targets)


def test_the_reader_sees_every_form_of_import() -> None:
    text = "import type { A } from './a';\nimport {\n  b\n} from './b';\nexport { c } from './c';\nimport './d';\n"
    assert _imports(text + "const e = await import('./e');\n") == {"a", "b", "c", "d", "e"}


def test_no_loop_of_modules_in_the_labextension() -> None:
    assert _cycles(_graph()) == []
