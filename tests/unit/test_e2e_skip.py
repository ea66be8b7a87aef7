"""On a machine without Chromium the browser tests are skipped with one line saying why; on CI, an error."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_with_e2e(**env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "CI"}
    environment.update(env, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "tests/unit/ui/test_magic_parsing.py",
            "tests/e2e",
        ],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_without_chromium_the_e2e_tests_are_skipped_with_one_line_saying_why(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-chromium"
    done = run_with_e2e(JUPYTER_AGENT_CHROMIUM=str(missing))
    assert done.returncode == 0, done.stdout + done.stderr
    skipped = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    assert len(skipped) == 1, done.stdout
    assert f"e2e tests skipped: no Chromium at {missing}" in skipped[0]
    assert re.search(r"^\d+ passed, \d+ skipped in ", done.stdout, re.MULTILINE), done.stdout


def test_on_ci_a_missing_chromium_is_an_error_not_a_silent_skip(tmp_path: Path) -> None:
    done = run_with_e2e(JUPYTER_AGENT_CHROMIUM=str(tmp_path / "no-such-chromium"), CI="true")
    assert done.returncode != 0
    assert "e2e tests cannot run on CI: no Chromium at" in done.stdout + done.stderr
