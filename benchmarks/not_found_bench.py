"""Edit's TEXT_NOT_FOUND hint on long, repetitive lines vs on ordinary code.

The hint searches the file for the text most like old_string with difflib, whose matching grows far faster
than the length on repetitive text: unbounded, a 4,000-character old_string against a line twice as long took
264 s for one such line. Both cases below build the whole not-found message for a file of 200 lines; the
ordinary one has short code lines, the hard one 8,000-character lines of one repeated phrase (difflib's worst
case). Prints the ratio (target < 400, i.e. well under a second here: the search is bounded; unbounded, the
hard case would take hours).

    .venv/bin/python benchmarks/not_found_bench.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_agent.builtin_tools.files.replace import not_found_message

ROUNDS = 3
LINES = 200


def timed(text: str, needle: str) -> float:
    start = time.perf_counter()
    not_found_message(text, needle, "f.py")
    return time.perf_counter() - start


def main() -> None:
    ordinary = "\n".join(f"value_{i} = compute(frame, column={i}, scale=0.5)" for i in range(LINES))
    ordinary_needle = "value_7 = compute(frame, column=77, scale=1.5)"
    phrase = "x = 1 "
    hard = "\n".join(phrase.replace(" ", "  ") * 888 for _ in range(LINES))
    hard_needle = phrase * 667
    baseline = min(timed(ordinary, ordinary_needle) for _ in range(ROUNDS))
    long_lines = min(timed(hard, hard_needle) for _ in range(ROUNDS))
    print(f"not found among {LINES} short code lines:            {baseline * 1000:8.1f} ms")
    print(f"not found among {LINES} 8,000-character lines:       {long_lines * 1000:8.1f} ms")
    print(f"ratio {long_lines / baseline:.1f} (target < 400: the near-miss search is bounded)")


if __name__ == "__main__":
    main()
