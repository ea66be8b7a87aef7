"""Run planned cells top to bottom in a fresh kernel with nbclient, one at a time, stopping at the first failure.

nbclient executes each cell as Jupyter would (outputs, `execution_count`, stdin refused) with a per-cell
timeout. Each cell's result becomes a `CellReport`; the first failure also keeps its exception, its
traceback (ANSI colours removed; IPython's traceback shows the failing lines of the cell's source) and the
tail of what the cell printed before it. The kernel is killed when the run ends, however it ends —
including when the agent is interrupted, which nbclient would otherwise report as a dead kernel.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ...notebook.cells import joined
from .fresh import FreshKernel
from .plan import PlannedCell

CellStatus = Literal["ok", "error", "timeout", "died", "skipped", "empty", "not run"]
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
#: What the failing cell printed before it failed, kept for the report (its tail).
_OUTPUT_TAIL_CHARS = 2000


@dataclass(frozen=True, kw_only=True)
class CellReport:
    id: str
    position: int
    first_line: str
    status: CellStatus
    seconds: float | None = None


@dataclass(frozen=True, kw_only=True)
class Failure:
    cell_id: str
    status: CellStatus
    ename: str = ""
    evalue: str = ""
    traceback: str = ""
    #: The tail of the cell's text output before it failed.
    output: str = ""


@dataclass(frozen=True, kw_only=True)
class Verification:
    notebook: str
    kernel: str
    cwd: Path
    timeout: float
    cells: tuple[CellReport, ...]
    failure: Failure | None
    seconds: float
    until_cell_id: str | None = None

    @property
    def clean(self) -> bool:
        return self.failure is None


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def _printed(outputs: Sequence[Any]) -> str:
    parts: list[str] = []
    for output in outputs:
        if output.get("output_type") == "stream":
            parts.append(joined(output.get("text", "")))
        elif output.get("output_type") in ("execute_result", "display_data"):
            parts.append(joined(output.get("data", {}).get("text/plain", "")) + "\n")
    text = strip_ansi("".join(parts))
    return text if len(text) <= _OUTPUT_TAIL_CHARS else "…" + text[-_OUTPUT_TAIL_CHARS:]


def _error_failure(cell_id: str, node: Any) -> Failure:
    error = next((o for o in node.outputs if o.get("output_type") == "error"), None)
    if error is None:
        return Failure(cell_id=cell_id, status="error", ename="Error", evalue="the cell raised an error")
    return Failure(
        cell_id=cell_id,
        status="error",
        ename=str(error.get("ename", "")),
        evalue=str(error.get("evalue", "")),
        traceback=strip_ansi("\n".join(str(line) for line in error.get("traceback", []))),
        output=_printed([o for o in node.outputs if o.get("output_type") != "error"]),
    )


class CellRunner:
    """Goes through the planned cells in `kernel`; `run()` returns the reports and the first failure."""

    def __init__(self, kernel: FreshKernel, planned: Sequence[PlannedCell], *, timeout: float) -> None:
        # nbformat and nbclient (jsonschema, its grammars) cost a first run seconds: imported when a check runs
        import nbformat
        from nbclient import NotebookClient

        self.kernel = kernel
        self.planned = list(planned)
        self.timeout = timeout
        v4: Any = nbformat.v4  # untyped keyword arguments
        notebook = v4.new_notebook()
        notebook.cells = [v4.new_code_cell(cell.source) for cell in self.planned]
        self.client = NotebookClient(
            notebook,
            km=kernel.manager,
            timeout=max(round(timeout), 1),
            allow_errors=False,
            interrupt_on_timeout=False,
            record_timing=False,
            resources={"metadata": {"path": str(kernel.cwd)}},
        )

    async def run(self) -> tuple[list[CellReport], Failure | None]:
        reports: list[CellReport] = []
        failure: Failure | None = None
        await self.client.async_start_new_kernel_client()
        try:
            for index, cell in enumerate(self.planned):
                if failure is not None:
                    reports.append(self._report(cell, "not run"))
                    continue
                if cell.disposition != "run":
                    reports.append(self._report(cell, "skipped" if cell.disposition == "agent" else "empty"))
                    continue
                report, failure = await self._run_one(index, cell)
                reports.append(report)
        finally:
            kc = self.client.kc
            if kc is not None:
                kc.stop_channels()
        return reports, failure

    async def _run_one(self, index: int, cell: PlannedCell) -> tuple[CellReport, Failure | None]:
        from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

        node = self.client.nb.cells[index]
        started = time.monotonic()
        failure: Failure | None = None
        status: CellStatus = "ok"
        try:
            await self.client.async_execute_cell(node, index)
        except CellTimeoutError:
            status = "timeout"
            failure = Failure(cell_id=cell.id, status=status, output=_printed(node.outputs))
        except CellExecutionError:
            status = "error"
            failure = _error_failure(cell.id, node)
        except DeadKernelError:
            _raise_if_cancelled()  # nbclient reports the agent's own cancellation as a dead kernel
            status = "died"
            failure = Failure(cell_id=cell.id, status=status, output=_printed(node.outputs))
        seconds = time.monotonic() - started
        return self._report(cell, status, seconds), failure

    @staticmethod
    def _report(cell: PlannedCell, status: CellStatus, seconds: float | None = None) -> CellReport:
        return CellReport(
            id=cell.id, position=cell.position, first_line=cell.first_line, status=status, seconds=seconds
        )


def _raise_if_cancelled() -> None:
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
