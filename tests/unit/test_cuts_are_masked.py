"""No text is cut for a reader before it is masked: a cut in the middle of a secret leaves a tail too short to
recognise. The one way to shorten text is `masking.clip` (head) or `masking.cap_text` (head and tail), which
mask first. This test keeps it so: it finds the shapes a text cut takes in the package — `x[:n] + "…"`,
`str(x)[:n]`, `x.strip()[:n]`, a slice inside an f-string — and fails on any outside those two functions,
unless its line says why it is no text for a reader (`# cut-ok: …`: a hash, an id, a byte sniff).
"""

from __future__ import annotations

import ast
from pathlib import Path

import jupyter_agent

PACKAGE = Path(jupyter_agent.__file__).parent
#: Where cutting is the job: both mask first.
CUTTERS = {("masking.py", "clip"), ("masking.py", "cap_text")}
_TEXT_CALLS = {
    "str",
    "repr",
    "strip",
    "rstrip",
    "lstrip",
    "decode",
    "join",
    "format",
    "getvalue",
    "read_text",
}


def _is_cut(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and node.slice.upper is not None
    )


def _text_valued(node: ast.expr) -> bool:
    if isinstance(node, ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        return name in _TEXT_CALLS
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def text_cuts(path: Path) -> list[tuple[int, str]]:
    source = path.read_text()
    lines = source.splitlines()
    tree = ast.parse(source)
    relative = path.relative_to(PACKAGE).as_posix()
    allowed_spans = [
        (f.lineno, f.end_lineno or f.lineno)
        for f in ast.walk(tree)
        if isinstance(f, ast.FunctionDef) and (relative, f.name) in CUTTERS
    ]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        cut: ast.AST | None = None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and _is_cut(node.left):
            cut = node.left if _text_valued(node.right) else None
        elif _is_cut(node) and isinstance(node, ast.Subscript) and _text_valued(node.value):
            cut = node
        elif isinstance(node, ast.FormattedValue) and _is_cut(node.value):
            cut = node.value
        if cut is None:
            continue
        line = getattr(cut, "lineno", 0)
        if any(start <= line <= end for start, end in allowed_spans) or "# cut-ok:" in lines[line - 1]:
            continue
        found.append((line, lines[line - 1].strip()))
    return found


def test_text_is_cut_only_by_the_functions_that_mask_first() -> None:
    found = {
        f"{path.relative_to(PACKAGE)}:{line}": text
        for path in sorted(PACKAGE.rglob("*.py"))
        if "testing" not in path.parts
        for line, text in text_cuts(path)
    }
    assert not found, "cut with masking.clip (or mark `# cut-ok: why`):\n" + "\n".join(
        f"{where}: {text}" for where, text in found.items()
    )


def test_the_finder_sees_each_shape_of_a_cut(tmp_path: Path) -> None:
    sample = PACKAGE / "_cut_sample_for_test.py"
    sample.write_text(
        'a = text[:80] + "…"\nb = str(x)[:10]\nc = f"{name[:5]}"\nd = items[:3]\ne = key.hex()[:8]  # cut-ok: a hash\n'
    )
    try:
        assert [line for line, _ in text_cuts(sample)] == [1, 2, 3]
    finally:
        sample.unlink()
