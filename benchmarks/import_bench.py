"""What `%load_ext jupyter_agent` costs: `import jupyter_agent` ÷ `import IPython`, each in fresh subprocesses.

Each sample is a new interpreter that times only the import (interpreter start-up excluded); the median
of the samples is kept. Also checks that `anthropic` is not imported by `import jupyter_agent` (it is
imported on the first run). Prints figures; asserts nothing.

    .venv/bin/python benchmarks/import_bench.py [--samples 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_PROBE = """
import json, sys, time
started = time.perf_counter()
import {module}
elapsed = time.perf_counter() - started
print(json.dumps({{"seconds": elapsed, "anthropic": "anthropic" in sys.modules, "modules": len(sys.modules)}}))
"""


def sample(module: str) -> dict[str, float | bool | int]:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE.format(module=module)],
        cwd=REPO,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--samples", type=int, default=7)
    args = parser.parse_args()
    results: dict[str, list[dict[str, float | bool | int]]] = {"jupyter_agent": [], "IPython": []}
    for _ in range(args.samples):  # interleaved, so both see the same disk cache and machine load
        for module in results:
            results[module].append(sample(module))
    median = {m: statistics.median(float(s["seconds"]) for s in runs) for m, runs in results.items()}
    ours, ipython = median["jupyter_agent"], median["IPython"]
    loads_sdk = any(bool(s["anthropic"]) for s in results["jupyter_agent"])
    print(f"samples:                   {args.samples} fresh interpreters each, median")
    print(
        f"import jupyter_agent:      {ours * 1000:.1f} ms  ({results['jupyter_agent'][0]['modules']} modules loaded)"
    )
    print(
        f"import IPython:            {ipython * 1000:.1f} ms  ({results['IPython'][0]['modules']} modules loaded)"
    )
    print(f"ratio jupyter_agent/IPython: {ours / ipython:.3f}")
    print(f"anthropic imported by `import jupyter_agent`: {'YES (should not be)' if loads_sdk else 'no'}")


if __name__ == "__main__":
    main()
