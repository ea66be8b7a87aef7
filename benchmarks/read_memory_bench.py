"""Read with offset/limit near the end of a 1 GB file: peak memory over the baseline (target < 64 MB).

A 1 GiB log of real lines is generated once under `benchmarks/.data/` (gitignored; a minute or so).
Each measurement runs in a fresh subprocess: it imports everything and builds the Dispatcher and
ToolContext first, takes its peak RSS as the baseline, runs one Read through the Dispatcher, and reports
the new peak minus the baseline (`resource.getrusage(...).ru_maxrss`, a high-water mark, so nothing
between samples is missed). With `--compare-naive` it also measures `read_text().splitlines()` on the
same file, the way a tool that loads the file would (needs ~3 GB free). Prints figures; asserts nothing.

    .venv/bin/python benchmarks/read_memory_bench.py [--compare-naive]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / ".data"
BIG = DATA / "big.log"
META = DATA / "big.log.json"
SIZE = 1024**3
TARGET_MB = 64

CHILD = r"""
import asyncio, json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from jupyter_agent.tools import Dispatcher, PermissionPolicy, Sandbox, ToolCall, ToolContext, ToolPool
from jupyter_agent.builtin_tools.files import file_tools

def peak_kb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

path, mode, offset, limit = Path(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
pool = ToolPool()
pool.set_source("builtin", file_tools())
dispatcher = Dispatcher(pool=pool, policy=PermissionPolicy(mode="default"))
ctx = ToolContext(sandbox=Sandbox.at(path.parent))
loop = asyncio.new_event_loop()
baseline = peak_kb()
started = time.perf_counter()
if mode == "tool":
    call = ToolCall(id="toolu_mem", name="Read", input={"file_path": path.name, "offset": offset, "limit": limit})
    result = loop.run_until_complete(dispatcher.dispatch(call, ctx)).result
    assert not result.is_error, result.content
    first = result.content.splitlines()[0]
else:
    lines = path.read_text().splitlines()[offset - 1 : offset - 1 + limit]
    first = lines[0]
elapsed = time.perf_counter() - started
print(json.dumps({"baseline_kb": baseline, "peak_kb": peak_kb(), "seconds": elapsed, "first": first[:80]}))
"""


def generate() -> int:
    """The 1 GiB file (once); returns its number of lines."""
    if META.exists() and BIG.exists() and BIG.stat().st_size >= SIZE:
        return int(json.loads(META.read_text())["lines"])
    DATA.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    written = lines = 0
    with open(BIG, "w") as handle:
        while written < SIZE:
            chunk = "".join(
                f"2024-03-{1 + n % 28:02d}T{n % 24:02d}:{n % 60:02d}:{n % 59:02d}.{n % 1000:03d} INFO "
                f"worker-{n % 16} request id={n} path=/api/v1/items/{n * 7919 % 100_000} status=200 "
                f"bytes={n * 31 % 65_536}\n"
                for n in range(lines, lines + 10_000)
            )
            handle.write(chunk)
            written += len(chunk)
            lines += 10_000
    META.write_text(json.dumps({"lines": lines}))
    print(
        f"generated {BIG} ({written / 2**30:.2f} GiB, {lines:,} lines) in {time.monotonic() - started:.0f} s"
    )
    return lines


def measure(mode: str, offset: int, limit: int) -> dict[str, float | str]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(ROOT), str(BIG), mode, str(offset), str(limit)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--compare-naive", action="store_true")
    args = parser.parse_args()
    total = generate()
    limit = 100
    offset = total - limit - 50
    print(
        f"file: {BIG} ({BIG.stat().st_size / 2**30:.2f} GiB, {total:,} lines); Read offset={offset:,} limit={limit}"
    )
    modes = ["tool", "naive"] if args.compare_naive else ["tool"]
    deltas: dict[str, float] = {}
    for mode in modes:
        figures = measure(mode, offset, limit)
        delta = (float(figures["peak_kb"]) - float(figures["baseline_kb"])) / 1024
        deltas[mode] = delta
        label = "Read tool (offset/limit)" if mode == "tool" else "naive read_text().splitlines()"
        print(
            f"{label:32} baseline {float(figures['baseline_kb']) / 1024:7.1f} MB  peak {float(figures['peak_kb']) / 1024:7.1f} MB  "
            f"delta {delta:7.1f} MB  {float(figures['seconds']):5.2f} s   first line: {figures['first']}"
        )
    print(
        f"Read peak delta / target: {deltas['tool']:.1f} MB / {TARGET_MB} MB = {deltas['tool'] / TARGET_MB:.2f}"
    )
    if "naive" in deltas:
        print(f"naive / Read peak delta: {deltas['naive'] / max(deltas['tool'], 0.1):.0f}×")


if __name__ == "__main__":
    main()
