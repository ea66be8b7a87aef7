"""Interrupt → the cell is done, in a real kernel: how long a stopped agent run takes to end.

Baseline: Interrupt of a plain cell sleeping in `time.sleep` (the kernel's own KeyboardInterrupt path).
Measured, each in a `%%agent` cell: Interrupt while RunCode sleeps in the user's code, while a Grep waits on a
FIFO nobody writes (rg never ends by itself), and while the model's answer streams. Each case runs ROUNDS
times; prints the median seconds from the interrupt to the cell's reply, and the ratio to the baseline
(target: each well under a second, a ratio near 1).

    .venv/bin/python benchmarks/interrupt_bench.py
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "kernel"))

from frontend import Execution, KernelFrontend  # noqa: E402

from jupyter_agent.testing import TEST_API_KEY, ScriptedServer, Text, ToolUse, Turn  # noqa: E402

ROUNDS = 5


def script(cwd: Path) -> Callable[[dict[str, Any], int], Turn]:
    def answer(body: dict[str, Any], _index: int) -> Turn:
        request = str(body["messages"][-1]["content"])
        if "runcode" in request:
            code = f"open({str(cwd / 'started')!r}, 'w').close()\nimport time\ntime.sleep(120)"
            return Turn(blocks=[ToolUse(name="RunCode", input={"code": code})])
        if "grep" in request:
            return Turn(blocks=[ToolUse(name="Grep", input={"pattern": "x", "path": "stuck.fifo"})])
        if "stream" in request:
            return Turn(blocks=[Text("word " * 5000)], chunk_size=5, delay=0.01)
        return Turn(blocks=[Text("ok")])

    return answer


def interrupted_after(fe: KernelFrontend, code: str, started: Callable[[Execution], bool]) -> float:
    cell = fe.execute(code)
    fe.wait(lambda: started(cell), 60, "the work to start")
    t0 = time.perf_counter()
    fe.km.interrupt_kernel()
    fe.wait(lambda: cell.done, 60, "the interrupted cell")
    return time.perf_counter() - t0


def rg_running(name: str) -> bool:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if name.encode() in (entry / "cmdline").read_bytes():
                    return True
            except OSError:
                continue
    return False


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        os.mkfifo(cwd / "stuck.fifo")
        marker = cwd / "started"
        with ScriptedServer(script(cwd)) as server:
            env = {
                "PYTHONPATH": str(ROOT),
                "ANTHROPIC_BASE_URL": server.url,
                "ANTHROPIC_API_KEY": TEST_API_KEY,
            }
            fe = KernelFrontend(cwd, env={**env, "JUPYTER_DATA_DIR": str(cwd / "data")})
            try:
                fe.run("%load_ext jupyter_agent")
                times: dict[str, list[float]] = {"plain cell": [], "RunCode": [], "Grep": [], "stream": []}
                for _ in range(ROUNDS):
                    marker.unlink(missing_ok=True)
                    plain = f"open({str(marker)!r}, 'w').close()\nimport time\ntime.sleep(120)"
                    times["plain cell"].append(interrupted_after(fe, plain, lambda _: marker.exists()))
                    marker.unlink()
                    agent = "%%agent --mode bypassPermissions\n"
                    times["RunCode"].append(
                        interrupted_after(fe, agent + "runcode", lambda _: marker.exists())
                    )
                    times["Grep"].append(
                        interrupted_after(fe, agent + "grep", lambda _: rg_running("stuck.fifo"))
                    )
                    streaming = interrupted_after(
                        fe, agent + "stream", lambda cell: "word word" in cell.text()
                    )
                    times["stream"].append(streaming)
            finally:
                fe.close()
    baseline = statistics.median(times["plain cell"])
    for case, values in times.items():
        median = statistics.median(values)
        print(
            f"{case:>10}: median {median * 1000:7.1f} ms, max {max(values) * 1000:7.1f} ms, ratio {median / baseline:.2f}"
        )


if __name__ == "__main__":
    main()
