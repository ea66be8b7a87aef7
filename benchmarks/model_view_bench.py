"""What the model is shown, per scripted trajectory: today's package against the recorded baseline (issue #42).

The ten trajectories of tests/kernel/trajectories.py run in one real ipykernel (tests/kernel/trajectory_harness.py)
against the scripted server. For each, the bench prints the tokens of the fixed prefix (system + tools), the tokens
of the tool results per step (median and max) and the calls used, for today's code ("new" calls) and for the
baseline recorded at the commit named in benchmarks/baselines/model_view_baseline.json ("baseline" calls, today's
contracts then). Both sides are counted in this run by one estimator, the scripted server's `block_tokens` (one token
per 4 characters of compact JSON, images by their pixels), from the baseline's recorded request bodies and today's
fresh ones. Target: tool-result tokens per step no higher than the baseline at the median and at least 30 % lower
at the maximum, and no trajectory needing more calls.

Prints figures; asserts nothing.

    .venv/bin/python benchmarks/model_view_bench.py              # today against the baseline
    .venv/bin/python benchmarks/model_view_bench.py --record     # re-record the baseline (the "baseline" calls)
    .venv/bin/python benchmarks/model_view_bench.py --only retrain,denial
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "kernel"))

from trajectories import TRAJECTORIES  # noqa: E402
from trajectory_harness import Figures, TrajectoryKernel, Variant, figures, view_of  # noqa: E402

BASELINE = ROOT / "benchmarks" / "baselines" / "model_view_baseline.json"


def run_views(variant: Variant, only: set[str]) -> dict[str, dict[str, Any]]:
    views: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="model-view-") as cwd:
        kernel = TrajectoryKernel(Path(cwd))
        try:
            for trajectory in TRAJECTORIES:
                if only and trajectory.name not in only:
                    continue
                run = kernel.run(trajectory, variant)
                views[trajectory.name] = view_of(run.requests, run.calls)
        finally:
            kernel.close()
    return views


def record(only: set[str]) -> None:
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    package = subprocess.run(
        ["git", "log", "-1", "--format=%H", "--", "jupyter_agent"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    views = run_views("baseline", only)
    shared = next(iter(views.values()))["prefix"]
    for view in views.values():
        if view["prefix"] == shared:
            del view["prefix"]
    BASELINE.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "note": (
            "What the model was shown by each scripted trajectory of tests/kernel/trajectories.py (its 'baseline' "
            "calls), recorded at the commit below: the first request's system and tools, and each step's "
            "tool_result blocks as sent. Re-record with: .venv/bin/python benchmarks/model_view_bench.py --record"
        ),
        "commit": commit,
        # The last commit that changed the package: what the model was shown is the package's, not the tests'.
        "package_commit": package,
        # The prefix is the same for every trajectory; each keeps its own only where it differs.
        "prefix": shared,
        "trajectories": views,
    }
    BASELINE.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"recorded {len(views)} trajectories at {commit[:10]} into {BASELINE.relative_to(ROOT)}")


def ratio(new: float, old: float) -> str:
    return f"{new / old:5.2f}×" if old else "  n/a"


def row(name: str, old: Figures, new: Figures) -> str:
    return (
        f"{name:<22} prefix {old.prefix:>6} → {new.prefix:>6} ({ratio(new.prefix, old.prefix)})  "
        f"median {old.median:>7.1f} → {new.median:>7.1f} ({ratio(new.median, old.median)})  "
        f"max {old.max:>6} → {new.max:>6} ({ratio(new.max, old.max)})  "
        f"total {sum(old.step_tokens):>6} → {sum(new.step_tokens):>6}  calls {old.calls:>2} → {new.calls:>2}"
    )


def compare(only: set[str]) -> None:
    recorded = json.loads(BASELINE.read_text(encoding="utf-8"))
    fresh = run_views("new", only)
    print(
        f"baseline recorded at {recorded['commit'][:10]} (package {recorded['package_commit'][:10]}); estimator: block_tokens (scripted server)"
    )
    old_steps: list[int] = []
    new_steps: list[int] = []
    worse_calls: list[str] = []
    for name, view in fresh.items():
        base_view = recorded["trajectories"].get(name)
        if base_view is None:
            print(f"{name:<22} no baseline recorded")
            continue
        old, new = figures({"prefix": recorded["prefix"], **base_view}), figures(view)
        old_steps.extend(old.step_tokens)
        new_steps.extend(new.step_tokens)
        if new.calls > old.calls:
            worse_calls.append(name)
        print(row(name, old, new))
    if not old_steps or not new_steps:
        return
    old_median, new_median = statistics.median(old_steps), statistics.median(new_steps)
    old_max, new_max = max(old_steps), max(new_steps)
    print(
        f"{'overall':<22} tool-result tokens per step: median {old_median:.1f} → {new_median:.1f} "
        f"({ratio(new_median, old_median)}), max {old_max} → {new_max} ({ratio(new_max, old_max)})"
    )
    print(
        f"target: median ≤ 1.00× {'met' if new_median <= old_median else 'NOT met'}; "
        f"max ≤ 0.70× {'met' if new_max <= 0.7 * old_max else 'NOT met'}; "
        f"no trajectory needs more calls: {'met' if not worse_calls else 'NOT met: ' + ', '.join(worse_calls)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--record", action="store_true", help="re-record the baseline from the 'baseline' calls"
    )
    parser.add_argument("--only", default="", help="comma-separated trajectory names")
    args = parser.parse_args()
    only = {name for name in args.only.split(",") if name}
    if args.record:
        record(only)
    else:
        compare(only)


if __name__ == "__main__":
    main()
