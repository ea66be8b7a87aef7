"""The UI thread in a real kernel: streamed-text render overhead and approval click → resume latency.

1. Streaming: the scripted model streams 5,000 text deltas. Baseline: the same stream read by the raw
   `anthropic` SDK inside the same kernel, rendering nothing. Measured: a `%%agent` cell rendering it
   (coalesced display updates). Prints the number of display updates and the ratio of wall times
   (target ≤ 1.1).
2. Approvals: a run with 10 calls that each ask; a jupyter_client frontend clicks "Allow once" as soon as the
   button appears; latency = click sent → the card's "running" update arrives on iopub. Prints the median.

    .venv/bin/python benchmarks/ui_bench.py
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "kernel"))

from frontend import KernelFrontend  # noqa: E402

from jupyter_agent.testing import TEST_API_KEY, ScriptedServer, Text, ToolUse, Turn  # noqa: E402

DELTAS = 5000
DELAY = 0.0004  # seconds between SSE events: a realistic, fast stream (~2,500 deltas/s)


def stream_turn() -> Turn:
    return Turn(blocks=[Text("x" * DELTAS)], chunk_size=1, delay=DELAY)


def kernel(server: ScriptedServer, cwd: Path) -> KernelFrontend:
    env = {"PYTHONPATH": str(ROOT), "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": TEST_API_KEY}
    return KernelFrontend(cwd, env=env)


RAW = """
import anthropic, time
client = anthropic.Anthropic()
t0 = time.perf_counter()
with client.messages.stream(model="claude-sonnet-4-5", max_tokens=100, messages=[{"role": "user", "content": "go"}]) as s:
    n = sum(1 for e in s if e.type == "content_block_delta")
print("RAW", time.perf_counter() - t0, n)
"""


def bench_streaming(cwd: Path) -> None:
    with ScriptedServer([stream_turn() for _ in range(6)]) as server:
        fe = kernel(server, cwd)
        try:
            fe.run("%load_ext jupyter_agent")
            raws, agents, updates = [], [], []
            for _ in range(3):
                out = fe.run(RAW, timeout=120).text()
                raws.append(float(out.split("RAW ")[1].split()[0]))
                t0 = time.perf_counter()
                cell = fe.run("%%agent --new\nstream", timeout=120)
                agents.append(time.perf_counter() - t0)
                updates.append(sum(1 for m in cell.outputs if m["msg_type"] == "update_display_data"))
        finally:
            fe.close()
    raw, agent = min(raws), min(agents)
    print(f"streaming {DELTAS} deltas: raw SDK {raw:.2f}s, %%agent cell {agent:.2f}s (incl. cell round trip)")
    print(f"  display updates per run: {updates} (all displays, cards and footer included)")
    print(f"  render overhead ratio: {agent / raw:.2f}  (target ≤ 1.1)")


def bench_approvals(cwd: Path, calls: int = 10) -> None:
    script = [
        Turn(blocks=[ToolUse(name="Write", input={"file_path": f"f{i}.txt", "content": "x"})])
        for i in range(calls)
    ]
    script.append(Turn(blocks=[Text("done")]))
    with ScriptedServer(script) as server:
        fe = kernel(server, cwd)
        latencies: list[float] = []
        try:
            fe.run("%load_ext jupyter_agent")
            cell = fe.execute("%%agent\nwrite files")
            for i in range(calls):
                fe.wait(lambda i=i: len(fe.buttons("Allow once")) > i, 60, "approval")
                seen = len(fe.iopub_log)
                sent = time.perf_counter()
                fe.send_comm(
                    fe.buttons("Allow once")[i].comm_id, {"method": "custom", "content": {"event": "click"}}
                )

                def resumed(seen: int = seen) -> bool:
                    return any(
                        "[running]" in m["content"].get("data", {}).get("text/plain", "")
                        for m in fe.iopub_log[seen:]
                        if m["msg_type"] == "update_display_data"
                    )

                fe.wait(resumed, 30, "resume")
                latencies.append(time.perf_counter() - sent)
            fe.wait(lambda: cell.done, 60, "end")
        finally:
            fe.close()
    ms = sorted(x * 1000 for x in latencies)
    print(
        f"approval click → agent resumes: median {statistics.median(ms):.1f} ms (min {ms[0]:.1f}, max {ms[-1]:.1f}, n={len(ms)})"
    )


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        bench_streaming(Path(tmp))
        bench_approvals(Path(tmp))
