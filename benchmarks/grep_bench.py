"""Grep tool vs raw ripgrep (target ≤ 1.3×) and vs a naive `os.walk` + `re` search (speedup), same queries.

A tree of ≥ 200 MB (thousands of small source-like files and a few large logs) is generated once under
`benchmarks/.data/grep_tree` (gitignored) from a fixed seed. Each query runs through our Grep tool the
way the agent runs it — the real Dispatcher, a real ToolContext, JSON input, permission check, result
formatting — and as the plain `rg` command a person would type, from the same directory, output to a
pipe. Runs alternate after a warm-up (so the page cache is equally warm for both). The wall-time ratio
uses the best run of each (on a shared machine the best run is the one least disturbed by other work);
medians are printed too. Because wall time on a busy machine mostly measures the neighbours, the CPU
time is measured as well — for the tool, this process plus its rg child; for raw rg, the rg child — and
its ratio is the overhead the tool adds whatever the load. Prints figures; asserts nothing.

    .venv/bin/python benchmarks/grep_bench.py [--runs 7] [--skip-naive]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_agent.builtin_tools.files import file_tools, find_rg
from jupyter_agent.tools import Dispatcher, PermissionPolicy, Sandbox, ToolCall, ToolContext, ToolPool

DATA = Path(__file__).resolve().parent / ".data" / "grep_tree"
TARGET_BYTES = 210 * 1024 * 1024
WORDS = [
    "data",
    "frame",
    "load",
    "save",
    "cache",
    "index",
    "value",
    "result",
    "error",
    "warning",
    "request",
    "response",
    "session",
    "user",
    "model",
    "train",
    "test",
    "split",
    "metric",
    "score",
    "batch",
    "epoch",
    "loss",
    "layer",
    "tensor",
    "array",
    "column",
    "row",
    "table",
    "query",
    "parse",
]

QUERIES: list[tuple[str, dict[str, Any], list[str]]] = [
    ("rare literal, files", {"pattern": "ERROR_CODE_4711"}, ["--files-with-matches"]),
    ("regex, files", {"pattern": r"def \w+_cache\("}, ["--files-with-matches"]),
    (
        "regex, content",
        {"pattern": r"raise \w+Error\(f.timeout", "output_mode": "content"},
        ["-n", "-H", "--no-heading"],
    ),
    ("literal, count", {"pattern": "session_token", "output_mode": "count"}, ["--count"]),
    ("case-insensitive, files", {"pattern": "deprecated api", "-i": True}, ["--files-with-matches", "-i"]),
]


def _line(rng: random.Random, n: int) -> str:
    kind = n % 11
    a, b = rng.choice(WORDS), rng.choice(WORDS)
    if kind == 0:
        return f"def {a}_{b}(self, {b}):\n"
    if kind == 1:
        return f"    return self.{a}.get({b!r}, None)  # {rng.random():.6f}\n"
    if kind == 2 and rng.random() < 0.002:
        return f"    raise {a.title()}Error(f'timeout after {{delay}}s')\n"
    if kind == 3 and rng.random() < 0.001:
        return f"def {a}_cache(key):\n"
    if kind == 4 and rng.random() < 0.003:
        return f"    {a} = session_token or {b}\n"
    if kind == 5 and rng.random() < 0.0005:
        return "    # Deprecated API: use load_v2\n"
    return f"    {a}_{b} = {a}({b}, {rng.randint(0, 10**6)})  # {' '.join(rng.choices(WORDS, k=6))}\n"


def _log_line(rng: random.Random, n: int) -> str:
    level = rng.choice(("INFO", "INFO", "INFO", "DEBUG", "WARN"))
    extra = " ERROR_CODE_4711" if rng.random() < 0.000002 else ""
    return f"2024-03-{1 + n % 28:02d}T12:{n % 60:02d}:{n % 59:02d} {level} worker-{n % 16} {rng.choice(WORDS)} id={n}{extra}\n"


def generate() -> int:
    """The tree (once); returns its size in bytes."""
    stamp = DATA / ".complete"
    if stamp.exists():
        return int(stamp.read_text())
    rng = random.Random(4711)
    total = 0
    started = time.monotonic()
    index = 0
    while total < TARGET_BYTES * 0.55:  # many small files in nested packages
        folder = DATA / "src" / f"pkg{index % 40}" / f"mod{index % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        lines = [_line(rng, n) for n in range(rng.randint(50, 700))]
        data = "".join(lines).encode()
        (folder / f"file{index}.py").write_bytes(data)
        total += len(data)
        index += 1
    logs = DATA / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    big = 0
    while total < TARGET_BYTES:  # a few large files
        with open(logs / f"service{big}.log", "w") as handle:
            written = 0
            n = 0
            while written < 12 * 1024 * 1024:
                chunk = "".join(_log_line(rng, n + k) for k in range(2000))
                handle.write(chunk)
                written += len(chunk)
                n += 2000
        total += written
        big += 1
    (DATA / ".gitignore").write_text("ignored/\n")
    stamp.write_text(str(total))
    print(
        f"generated {index} source files + {big} logs, {total / 2**20:.0f} MB in {time.monotonic() - started:.0f} s"
    )
    return total


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def run_tool(
    loop: asyncio.AbstractEventLoop, dispatcher: Dispatcher, ctx: ToolContext, tool_input: dict[str, Any]
) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of this process and its rg child, summary)."""
    cpu_before = _cpu(resource.RUSAGE_SELF) + _cpu(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    call = ToolCall(id="toolu_bench", name="Grep", input=tool_input)
    result = loop.run_until_complete(dispatcher.dispatch(call, ctx)).result
    elapsed = time.perf_counter() - started
    cpu = _cpu(resource.RUSAGE_SELF) + _cpu(resource.RUSAGE_CHILDREN) - cpu_before
    assert not result.is_error, result.content
    return elapsed, cpu, result.summary


def run_rg(rg: str, flags: list[str], pattern: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds of rg)."""
    cpu_before = _cpu(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([rg, *flags, "-e", pattern], cwd=DATA, capture_output=True, check=False)
    return time.perf_counter() - started, _cpu(resource.RUSAGE_CHILDREN) - cpu_before


def _ms(times: list[float]) -> str:
    return f"{min(times) * 1000:.0f} / {statistics.median(times) * 1000:.0f}ms"


def naive(tool_input: dict[str, Any]) -> tuple[float, int]:
    """What a hand-written search does: walk everything, test each line with `re`."""
    flags = re.IGNORECASE if tool_input.get("-i") else 0
    regex = re.compile(tool_input["pattern"], flags)
    started = time.perf_counter()
    hits = 0
    for directory, dirs, files in os.walk(DATA):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as handle:
                for line in handle:
                    if regex.search(line):
                        hits += 1
    return time.perf_counter() - started, hits


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--skip-naive", action="store_true")
    args = parser.parse_args()
    size = generate()
    rg = find_rg()
    if rg is None:
        sys.exit("rg not found; install the ripgrep wheel")
    pool = ToolPool()
    pool.set_source("builtin", file_tools())
    dispatcher = Dispatcher(pool=pool, policy=PermissionPolicy(mode="default"))
    ctx = ToolContext(sandbox=Sandbox.at(DATA))
    loop = asyncio.new_event_loop()
    print(f"tree: {DATA} ({size / 2**20:.0f} MB), rg: {rg}, cpus: {os.cpu_count()}, runs: {args.runs}")
    run_rg(rg, ["--files-with-matches"], "warm the page cache")
    print(
        f"{'query':26} {'Grep tool':>16} {'raw rg':>16} {'wall':>6} {'CPU':>6} {'naive py':>9} {'speedup':>8}  result\n"
        f"{'':26} {'best / median':>16} {'best / median':>16} {'ratio':>6} {'ratio':>6}"
    )
    walls: list[float] = []
    cpus: list[float] = []
    for label, tool_input, flags in QUERIES:
        ours: list[float] = []
        theirs: list[float] = []
        our_cpu = their_cpu = 0.0
        summary = ""
        for _ in range(args.runs):
            elapsed, cpu, summary = run_tool(loop, dispatcher, ctx, tool_input)
            ours.append(elapsed)
            our_cpu += cpu
            elapsed, cpu = run_rg(rg, flags, tool_input["pattern"])
            theirs.append(elapsed)
            their_cpu += cpu
        wall, cpu_ratio = min(ours) / min(theirs), our_cpu / their_cpu
        walls.append(wall)
        cpus.append(cpu_ratio)
        naive_cell = speed_cell = "-"
        if not args.skip_naive:
            naive_time, _ = naive(tool_input)
            naive_cell, speed_cell = f"{naive_time:8.2f}s", f"{naive_time / min(ours):7.0f}×"
        print(
            f"{label:26} {_ms(ours):>16} {_ms(theirs):>16} {wall:5.2f}× {cpu_ratio:5.2f}× {naive_cell:>9} "
            f"{speed_cell:>8}  {summary}"
        )
    print(
        f"Grep/rg wall-time ratio (best runs): worst {max(walls):.2f}×, geometric mean "
        f"{statistics.geometric_mean(walls):.2f}× (target ≤ 1.3×)\n"
        f"Grep/rg CPU-time ratio: worst {max(cpus):.2f}×, geometric mean {statistics.geometric_mean(cpus):.2f}×\n"
        f"load average during the run: {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs"
    )
    loop.close()


if __name__ == "__main__":
    main()
