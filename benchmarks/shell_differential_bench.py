"""The long run of the bash differential test: many generated commands, each run by bash in the sandbox.

    .venv/bin/python benchmarks/shell_differential_bench.py [--count 10000] [--seed N] [--batch 2000]

Prints how many commands were generated, how many an allow rule could pass (the others ask), how many ran a
program, the misses (a command bash ran that the analysis did not see, where an allow rule could pass: target
0, each printed), and the analysis time against bash's own time for the same commands (the ratio).
Exits 1 on any miss.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "unit" / "permissions"))

from shell_oracle import analysed, check, generate, run_in_bash  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--batch", type=int, default=2_000)
    args = parser.parse_args()
    commands = generate(args.seed, args.count)
    bash_seconds = 0.0
    runs = []
    for start in range(0, len(commands), args.batch):
        batch = commands[start : start + args.batch]
        with tempfile.TemporaryDirectory() as directory:
            began = time.perf_counter()
            runs += run_in_bash(batch, Path(directory))
            bash_seconds += time.perf_counter() - began
    began = time.perf_counter()
    allowable = sum(analysed(c) for c in commands)
    analysis_seconds = time.perf_counter() - began
    misses = 0
    for command, ran in zip(commands, runs, strict=True):
        found = check(command, ran)
        if found:
            misses += 1
            print(f"MISS {command!r}: {found}")
    ran_something = sum(bool(r.argvs or r.debug) for r in runs)
    print(
        f"seed {args.seed}: {len(commands)} commands, {allowable} an allow rule could pass, {ran_something} ran"
    )
    print(f"misses: {misses} (target 0)")
    print(
        f"analysis {analysis_seconds:.2f} s vs bash in the sandbox {bash_seconds:.1f} s "
        f"(ratio {analysis_seconds / bash_seconds:.3f}; {1e3 * analysis_seconds / len(commands):.2f} ms a command)"
    )
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
