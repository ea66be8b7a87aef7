"""The first `%%agent` of a kernel: how soon its request reaches the API, against a fresh `import anthropic`.

`%load_ext jupyter_agent` starts importing the SDK (and pydantic, and the agent's modules) in a background
thread. A user types their first request a few seconds later; this measures, in fresh kernels, the time
from sending that `%%agent` cell to the scripted server receiving its first Messages request, and divides
it by the median time of `import anthropic` in fresh interpreters on the same machine, in the same run.
Target: ratio <= 0.25 (before the warm-up it was about 0.85), for each frontend (`--frontends`): `page`
answers the notebook comm as JupyterLab with the extension does; `widgets` is a widget frontend without the
extension, which never answers it (no run may wait for its greeting); `headless` runs cells as nbclient does
(allow_stdin false, no widgets). Prints figures; asserts nothing.

    .venv/bin/python benchmarks/first_run_bench.py [--samples 3] [--pause 5] [--frontends page,widgets,headless]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "kernel"))

from frontend import KernelFrontend  # noqa: E402
from notebook_page import NotebookPage  # noqa: E402

from jupyter_agent.testing import TEST_API_KEY, ScriptedServer, Text, Turn  # noqa: E402

_IMPORT = (
    "import json, time; t = time.perf_counter(); import anthropic; print(json.dumps(time.perf_counter() - t))"
)


def import_seconds() -> float:
    out = subprocess.run(
        [sys.executable, "-c", _IMPORT],
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    return float(json.loads(out.stdout))


def first_request_seconds(pause: float, frontend_kind: str) -> float:
    arrivals: list[float] = []

    def answer(_body: dict[str, Any], _index: int) -> Turn:
        arrivals.append(time.time())
        return Turn(blocks=[Text("hello")])

    with ScriptedServer(answer) as server, tempfile.TemporaryDirectory() as tmp:
        env = {
            "PYTHONPATH": str(ROOT),
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": TEST_API_KEY,
            "JUPYTER_DATA_DIR": str(Path(tmp) / "data"),
            "HOME": tmp,
        }
        headless = frontend_kind == "headless"
        frontend = KernelFrontend(Path(tmp), env=env, widgets=not headless, allow_stdin=not headless)
        if frontend_kind == "page":
            NotebookPage(frontend)
        try:
            frontend.run("%load_ext jupyter_agent")
            time.sleep(pause)  # the user reads, then types the first request
            sent = time.time()
            frontend.run("%%agent\nhello", timeout=120)
        finally:
            frontend.close()
    return arrivals[0] - sent


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument(
        "--pause", type=float, default=5.0, help="seconds between %%load_ext and the first cell"
    )
    parser.add_argument("--frontends", default="page,widgets,headless")
    args = parser.parse_args()
    kinds = args.frontends.split(",")
    imports: list[float] = []
    firsts: dict[str, list[float]] = {kind: [] for kind in kinds}
    for _ in range(args.samples):  # interleaved, so all see the same disk cache and machine load
        imports.append(import_seconds())
        for kind in kinds:
            firsts[kind].append(first_request_seconds(args.pause, kind))
    base = statistics.median(imports)
    print(
        f"samples:                        {args.samples} (median), pause after %load_ext {args.pause:.1f} s"
    )
    print(f"fresh `import anthropic`:       {base * 1000:.0f} ms")
    for kind, seconds in firsts.items():
        first = statistics.median(seconds)
        print(
            f"{kind + ':':<9} first request {first * 1000:5.0f} ms  ({[round(f * 1000) for f in seconds]})  "
            f"ratio {first / base:.2f}x  (target <= 0.25)"
        )


if __name__ == "__main__":
    main()
