"""The shared operation vectors (tests/fixtures/notebook_ops) through the Python engine, `notebook.apply`.

The labextension's jest suite runs the same files through `ops.ts`, so the two engines cannot drift apart
unnoticed: the file backend and the unit tests' stand-in page use this engine, JupyterLab uses the other.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from jupyter_agent.notebook.apply import apply_ops
from jupyter_agent.notebook.cells import joined
from jupyter_agent.notebook.ops import op_from_wire

VECTORS = Path(__file__).resolve().parents[2] / "fixtures" / "notebook_ops"


def load_cases() -> list[Any]:
    cases: list[Any] = []
    for path in sorted(VECTORS.glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8")):
            cases.append(pytest.param(case, id=f"{path.stem}: {case['name']}"))
    return cases


def run_ops(cells: list[dict[str, Any]], ops: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each op parsed as the wire protocol says (a malformed one is INVALID_OP alone), then applied."""
    results: list[dict[str, Any]] = []
    for raw in ops:
        try:
            op = op_from_wire(raw)
        except ValueError as exc:
            results.append({"ok": False, "error": "INVALID_OP", "message": str(exc)})
            continue
        applied = apply_ops(cells, [op], name="analysis.ipynb")
        results.extend(result.to_wire(path="analysis.ipynb") for result in applied.results)
    return results


def normalized(cell: dict[str, Any]) -> dict[str, Any]:
    return {**cell, "source": joined(cell.get("source", ""))}


def assert_matches(expected: Any, actual: Any, other_ids: set[str], where: str) -> None:
    """Exact equality, except that an expected `id` of "*" accepts any id not among `other_ids`."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        assert set(expected) == set(actual), f"{where}: keys {sorted(actual)} != {sorted(expected)}"
        for key, value in expected.items():
            if key == "id" and value == "*":
                assert isinstance(actual[key], str) and actual[key] and actual[key] not in other_ids, where
            else:
                assert_matches(value, actual[key], other_ids, f"{where}.{key}")
    else:
        assert expected == actual, f"{where}: {actual!r} != {expected!r}"


@pytest.mark.parametrize("case", load_cases())
def test_the_python_engine_gives_the_vectors_results_and_cells(case: dict[str, Any]) -> None:
    cells = copy.deepcopy(case["cells"])
    results = run_ops(cells, case["ops"])
    assert len(results) == len(case["ops"])
    named = {str(c["id"]) for c in case["expected_cells"] if c["id"] != "*"}
    for index, (expected, actual) in enumerate(zip(case["results"], results, strict=True)):
        shown = {k: v for k, v in actual.items() if k in expected}
        assert_matches(expected, shown, named, f"results[{index}] ({actual.get('message', '')})")
    assert len(cells) == len(case["expected_cells"]), [c["id"] for c in cells]
    for index, (expected, actual) in enumerate(zip(case["expected_cells"], cells, strict=True)):
        assert_matches(expected, normalized(actual), named, f"cells[{index}]")


def test_the_vectors_cover_every_changing_op_and_every_error_code_both_engines_share() -> None:
    ops = {
        op.get("op")
        for path in VECTORS.glob("*.json")
        for c in json.loads(path.read_text())
        for op in c["ops"]
    }
    errors = {
        r.get("error")
        for path in VECTORS.glob("*.json")
        for c in json.loads(path.read_text())
        for r in c["results"]
    }
    assert {
        "insert",
        "replace",
        "delete",
        "move",
        "clear_outputs",
        "restore",
        "set_type",
        "set_outputs",
    } <= ops
    assert {"STALE_READ", "CELL_NOT_FOUND", "CELL_EXISTS", "INVALID_OP"} <= errors
