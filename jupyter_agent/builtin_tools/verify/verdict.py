"""The verification's report: a one-line verdict, a line per cell, the first failure in full — and, when a
cell failed on something that exists only in the live kernel, a hint that says so.

Hidden state is what a clean run finds: a name defined by a cell since deleted or edited (`NameError`), a
module importable only because the live kernel's `sys.path` was changed (`ModuleNotFoundError`), an
environment variable set in the live kernel after it started. Each is checked against the live kernel
without running any of its code: the namespace's keys, `sys.modules`, the environment, IPython's input
history (`In`), parsed, never executed.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Mapping, Sequence
from typing import Any, cast

from ...masking import cap_text, shorten
from .runner import CellReport, Failure, Verification

_NAME_ERROR = re.compile(r"name '([A-Za-z_][A-Za-z0-9_]*)' is not defined")
_NO_MODULE = re.compile(r"No module named '([A-Za-z0-9_.]+)'")
#: How far back in the input history to look for the cell that set a name.
_HISTORY_ENTRIES = 2000
_FIRST_LINE_CHARS = 60


def _binds(source: str, name: str) -> bool:
    """Whether the code assigns, defines or imports `name` at any level (parsed, never run)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            return True
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == name:
            return True
        if isinstance(node, ast.Import | ast.ImportFrom) and any(
            (alias.asname or alias.name.split(".")[0]) == name for alias in node.names
        ):
            return True
    return False


def _where_set(history: Sequence[Any], name: str) -> str:
    """` (set by In [7]: b = a + 1)` for the newest input that binds `name`, or ''."""
    start = max(len(history) - _HISTORY_ENTRIES, 1)
    for number in range(len(history) - 1, start - 1, -1):
        source = history[number]
        if isinstance(source, str) and _binds(source, name):
            first = next((line.strip() for line in source.splitlines() if line.strip()), "")
            first = shorten(first, _FIRST_LINE_CHARS)
            return f" (set by In [{number}]: {first})"
    return ""


def live_only_hint(
    failure: Failure,
    *,
    namespace: Mapping[str, Any] | None,
    live_env: Mapping[str, str],
    startup_env: Mapping[str, str],
) -> str:
    """` — defined only in your live kernel (set by In [7]: …)`, or '' when the failure is not about live state."""
    message = f"{failure.ename}: {failure.evalue}"
    name_error = _NAME_ERROR.search(message) if failure.ename == "NameError" else None
    if name_error is not None and namespace is not None and name_error.group(1) in namespace:
        name = name_error.group(1)
        history: Any = namespace.get("In")
        where = _where_set(cast("list[Any]", history), name) if isinstance(history, list) else ""
        return f" — defined only in your live kernel{where}"
    no_module = (
        _NO_MODULE.search(message) if failure.ename in ("ModuleNotFoundError", "ImportError") else None
    )
    if no_module is not None and no_module.group(1) in sys.modules:
        return " — importable only in your live kernel (its sys.path or working directory was changed there?)"
    live_only = sorted(k for k in live_env if k not in startup_env and len(k) >= 3 and k in message)
    if live_only:
        return (
            f" — {live_only[0]} is set only in your live kernel's environment (by %env or os.environ in a cell "
            "that is not in the notebook, or after the kernel started)"
        )
    return ""


def verdict(result: Verification, hint: str = "") -> str:
    """`runs clean in 14.2 s` / `fails at cell cb: NameError: name 'b' is not defined — defined only in …`."""
    failure = result.failure
    if failure is None:
        upto = f" up to cell {result.until_cell_id}" if result.until_cell_id else ""
        skipped = sum(1 for cell in result.cells if cell.status == "skipped")
        agent = f" ({skipped} agent cell{'s' if skipped != 1 else ''} skipped)" if skipped else ""
        return f"runs clean{upto} in {result.seconds:.1f} s{agent}"
    where = f"fails at cell {failure.cell_id}"
    if failure.status == "timeout":
        return f"{where}: no result after {result.timeout:g} s (the per-cell timeout); the cell was stopped"
    if failure.status == "died":
        return f"{where}: the kernel died while it ran (a crash, os._exit or out of memory)"
    error = f"{failure.ename}: {failure.evalue}" if failure.evalue else failure.ename
    return f"{where}: {cap_text(error, 300)}{hint}"


def _seconds(cell: CellReport) -> str:
    return f"{cell.seconds:.2f} s" if cell.seconds is not None else ""


def cell_lines(cells: Sequence[CellReport]) -> list[str]:
    """`   3  cb  error    0.02 s  print(b)` for each code cell, in notebook order."""
    width = max((len(cell.id) for cell in cells), default=2)
    lines: list[str] = []
    for cell in cells:
        first = shorten(cell.first_line, 60)
        lines.append(
            f"{cell.position:>4}  {cell.id:<{width}}  {cell.status:<8} {_seconds(cell):>9}  {first}".rstrip()
        )
    return lines


def report_text(result: Verification, hint: str = "", *, max_chars: int = 30_000) -> str:
    """The whole report: the verdict, where it ran, one line per code cell, then the first failure."""
    ran = sum(1 for cell in result.cells if cell.status not in ("skipped", "empty", "not run"))
    lines = [
        f"{result.notebook} {verdict(result, hint)}",
        f"(a fresh kernel, {result.kernel}, in {result.cwd}; {ran} of {len(result.cells)} code cells ran; "
        "your kernel and the file were not touched)",
        "",
        *cell_lines(result.cells),
    ]
    failure = result.failure
    if failure is not None:
        lines += ["", f"First failure, cell {failure.cell_id}:"]
        if failure.output.strip():
            lines += ["It printed before failing:", failure.output.rstrip()]
        if failure.traceback:
            lines.append(failure.traceback.rstrip())
    return cap_text("\n".join(lines), max_chars)
