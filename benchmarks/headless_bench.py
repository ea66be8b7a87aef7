"""A headless run (nbclient: papermill, nbconvert --execute, voila) whose calls would ask: what it costs.

No one can answer there, so every ask is refused; the question is how long finding that out takes. Baseline:
the same notebook and script in bypassPermissions (nothing asks). Measured: the default mode, where each of
the 5 Write calls asks and is refused. Both are timed by nbclient's own cell timing (`record_timing`) on the
`%%agent` cell, the median of 3 runs each, in the same kernel kind. Prints the added seconds per run (target
≤ 0.5 s; it was 2.0 s: a widget probe that no headless client answers) and the ratio.

    .venv/bin/python benchmarks/headless_bench.py
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jupyter_agent.testing import TEST_API_KEY, ScriptedServer, Text, ToolUse, Turn  # noqa: E402

ASKING_CALLS = 5
RUNS = 3


def script() -> list[Turn]:
    writes = [
        Turn(blocks=[ToolUse(name="Write", input={"file_path": f"note{n}.md", "content": "n\n"})])
        for n in range(ASKING_CALLS)
    ]
    return [*writes, Turn(blocks=[Text("done")])]


def agent_cell_seconds(mode: str, tmp: Path, run: int) -> float:
    """How long the `%%agent` cell took, from nbclient's own timing of it (each run in a fresh directory)."""
    cwd = tmp / f"{mode}-{run}"
    cwd.mkdir()
    with ScriptedServer(script()) as server:
        os.environ.update(ANTHROPIC_BASE_URL=server.url, ANTHROPIC_API_KEY=TEST_API_KEY, PYTHONPATH=str(ROOT))
        nb = new_notebook(
            cells=[new_code_cell("%load_ext jupyter_agent"), new_code_cell(f"%%agent --mode {mode}\nnotes")]
        )
        NotebookClient(
            nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}
        ).execute()
    timing: dict[str, Any] = nb.cells[1].metadata["execution"]
    start = datetime.fromisoformat(timing["iopub.status.busy"].replace("Z", "+00:00"))
    end = datetime.fromisoformat(timing["shell.execute_reply"].replace("Z", "+00:00"))
    refused = sum("DENIED" in str(o.get("data", {}).get("text/plain", "")) for o in nb.cells[1].outputs)
    texts = [str(o.get("data", {}).get("text/plain", "")) for o in nb.cells[1].outputs]
    assert refused == (ASKING_CALLS if mode == "default" else 0), f"{mode}: {refused} refusals in {texts}"
    return (end - start).total_seconds()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["JUPYTER_DATA_DIR"] = str(Path(tmp) / "data")
        baseline = statistics.median(
            agent_cell_seconds("bypassPermissions", Path(tmp), n) for n in range(RUNS)
        )
        asking = statistics.median(agent_cell_seconds("default", Path(tmp), n) for n in range(RUNS))
    added = asking - baseline
    print(f"headless %%agent cell, {ASKING_CALLS} calls that ask (median of {RUNS}):")
    print(f"  baseline (nothing asks):      {baseline:.3f} s")
    print(f"  every call asks, refused:     {asking:.3f} s")
    print(f"  added per headless run:       {added:+.3f} s  (target <= 0.5 s)  ratio {asking / baseline:.2f}")


if __name__ == "__main__":
    main()
