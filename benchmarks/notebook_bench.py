"""Notebook backends: the live bridge's round trip and a 50-op batch; one file edit on a 1,000-cell notebook.

Live: a real ipykernel driven by jupyter_client (tests/kernel/frontend.py) whose frontend answers the
`jupyter_agent.notebook` comm like the labextension (tests/kernel/notebook_page.py). In the kernel a cell
starts a worker thread that makes the requests through `LiveNotebook` while the main thread pumps shell
messages with `ShellPump`, as during `%%agent`. Times are measured in the kernel, from sending a request
to holding its parsed results. Targets: a batch of 50 ops ≤ 10× one round trip.

File: `FileNotebook.replace` of one cell (read, stale check, schema check of the change, atomic write) on
a 1,000-cell notebook with outputs, against the obvious baseline — `nbformat.read`, change, `nbformat.write`
— in the same process. Target: ≤ 100 ms.

Prints figures; asserts nothing.

    .venv/bin/python benchmarks/notebook_bench.py [--round-trips 50] [--batches 10] [--edits 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "kernel"))

import nbformat  # noqa: E402
from frontend import KernelFrontend  # noqa: E402
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output  # noqa: E402
from notebook_page import NotebookPage  # noqa: E402

from jupyter_agent.notebook.file_backend import FileNotebook  # noqa: E402
from jupyter_agent.notebook.ops import Replace, raise_for  # noqa: E402

KERNEL_CELL = """
import asyncio, json, threading, time
from pathlib import Path
from jupyter_agent.notebook.bridge import LiveBridge
from jupyter_agent.notebook.ops import GetCells, Insert
from jupyter_agent.notebook.provider import NotebookProvider
from jupyter_agent.ui.pump import ShellPump

provider = NotebookProvider(
    default_path=Path("analysis.ipynb"), bridge=LiveBridge(notebook_path=str(Path("analysis.ipynb").resolve()))
)
figures = {{"round_trip": [], "batch": []}}

async def measure():
    book = await provider.open(None)
    figures["live"] = book.live
    for _ in range(5):  # warm-up
        await book.apply([GetCells()])
    for _ in range({round_trips}):
        start = time.perf_counter()
        await book.apply([GetCells()])
        figures["round_trip"].append(time.perf_counter() - start)
    for _ in range({batches}):
        ops = [Insert(after_id=None, cell_type="code", source=f"n = {{i}}") for i in range(50)]
        start = time.perf_counter()
        results = await book.apply(ops)
        figures["batch"].append(time.perf_counter() - start)
        assert all(r.ok for r in results)

def worker():
    try:
        asyncio.run(measure())
    except BaseException as exc:
        figures["error"] = repr(exc)

thread = threading.Thread(target=worker)
thread.start()
pump = ShellPump.for_kernel(get_ipython().kernel)
while thread.is_alive():
    pump.pump(0.05)
pump.finish()
print("FIGURES " + json.dumps(figures))
"""


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def live_bridge(round_trips: int, batches: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = {"PYTHONPATH": str(ROOT), "JPY_SESSION_NAME": str(Path(tmp) / "analysis.ipynb")}
        frontend = KernelFrontend(Path(tmp), env=env)
        try:
            NotebookPage(frontend)
            cell = frontend.run(KERNEL_CELL.format(round_trips=round_trips, batches=batches), timeout=300)
        finally:
            frontend.close()
    line = next((ln for ln in cell.text().splitlines() if ln.startswith("FIGURES ")), None)
    if line is None:
        print("live bridge: the kernel cell printed no figures:\n" + cell.text())
        return
    figures: dict[str, Any] = json.loads(line.removeprefix("FIGURES "))
    if "error" in figures or not figures.get("live"):
        print(f"live bridge: failed: {figures.get('error', 'not live')}")
        return
    trip = statistics.median(figures["round_trip"])
    batch = statistics.median(figures["batch"])
    print("live bridge (real ipykernel, jupyter_client frontend answering the comm, main thread pumping):")
    print(
        f"  round trip (get_cells): median {ms(trip)}, min {ms(min(figures['round_trip']))}, "
        f"max {ms(max(figures['round_trip']))} over {len(figures['round_trip'])}"
    )
    print(f"  batch of 50 inserts:    median {ms(batch)}, min {ms(min(figures['batch']))} over {batches}")
    print(f"  batch / round trip:     {batch / trip:.1f}×  (target ≤ 10×)")


def big_notebook(path: Path, cells: int) -> None:
    nb = new_notebook()
    for i in range(cells):
        if i % 10 == 0:
            nb.cells.append(new_markdown_cell(f"## Step {i}\nSome explanation of step {i}."))
            continue
        cell = new_code_cell(f"df_{i} = transform(df_{i - 1}, k={i})\ndf_{i}.head()", execution_count=i)
        cell.outputs = [
            new_output("stream", name="stdout", text=f"processed {i} rows\n"),
            new_output("execute_result", data={"text/plain": f"   a  b\n0  {i}  {i + 1}"}, execution_count=i),
        ]
        nb.cells.append(cell)
    nbformat.write(nb, path)


def file_backend(edits: int, cells: int = 1000) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.ipynb"
        big_notebook(path, cells)
        size = path.stat().st_size
        book = FileNotebook(path)
        target = asyncio.run(book.cells())[cells // 2]

        cpu: list[float] = []

        async def ours() -> list[float]:
            times: list[float] = []
            source = (await book.cell(target.id))[1].source
            for n in range(edits):
                new = f"{target.source}  # edit {n}"
                start, start_cpu = time.perf_counter(), time.process_time()
                (result,) = await book.apply([Replace(id=target.id, source=new, expect=source)])
                raise_for(result)
                times.append(time.perf_counter() - start)
                cpu.append(time.process_time() - start_cpu)
                source = new
            return times

        def baseline() -> list[float]:
            times: list[float] = []
            for n in range(edits):
                start = time.perf_counter()
                nb = nbformat.read(path, as_version=4)
                cell = next(c for c in nb.cells if c.id == target.id)
                cell.source = f"{target.source}  # baseline {n}"
                nbformat.write(nb, path)
                times.append(time.perf_counter() - start)
            return times

        ours_times: list[float] = []
        base_times: list[float] = []
        for _ in range(2):  # alternate, so both see the same machine load
            ours_times += asyncio.run(ours())
            base_times += baseline()
        nbformat.validate(nbformat.read(path, as_version=4))
    mine, base = statistics.median(ours_times), statistics.median(base_times)
    print(f"file backend: one replace on a {cells}-cell notebook ({size / 1024:.0f} KB):")
    print(
        f"  FileNotebook.replace:              median {ms(mine)}, min {ms(min(ours_times))}  (target ≤ 100 ms)"
    )
    print(f"  its CPU time (load-independent):   median {ms(statistics.median(cpu))}")
    print(f"  baseline nbformat.read/.write:     median {ms(base)}, min {ms(min(base_times))}")
    print(f"  ratio (ours / baseline):           {mine / base:.2f}×")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--round-trips", type=int, default=50)
    parser.add_argument("--batches", type=int, default=10)
    parser.add_argument("--edits", type=int, default=20)
    args = parser.parse_args()
    file_backend(args.edits)
    live_bridge(args.round_trips, args.batches)


if __name__ == "__main__":
    main()
