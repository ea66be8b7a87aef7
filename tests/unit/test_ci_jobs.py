"""The job runner .ci/run sources (scripts/ci_jobs.sh): every job runs even after one failed, a job beside the
others is waited for and its output shown, and CI fails when any job did, naming it."""

from __future__ import annotations

import subprocess
from pathlib import Path

RUNNER = Path(__file__).resolve().parents[2] / "scripts" / "ci_jobs.sh"


def ci(tmp_path: Path, lines: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "run"
    script.write_text(f"set -uo pipefail\nsource {RUNNER}\n{lines}\nci_summary\n", encoding="utf-8")
    return subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=60, cwd=tmp_path)


def summary(output: str) -> list[str]:
    lines = output.split("== CI jobs\n", 1)[1].splitlines()
    return [" ".join(line.split()[:1] + line.split()[3:]) for line in lines if not line.startswith("==")]


def test_every_job_runs_after_a_failure_and_ci_fails_naming_the_job(tmp_path: Path) -> None:
    done = ci(tmp_path, 'job first true\njob broken bash -c "exit 3"\njob last touch last-ran')
    assert done.returncode == 1
    assert (tmp_path / "last-ran").exists()
    assert summary(done.stdout) == ["first ok", "broken FAILED (exit 3)", "last ok"]


def test_a_job_beside_the_others_is_waited_for_and_its_output_shown_after_theirs(tmp_path: Path) -> None:
    beside = "until [ -e foreground-done ]; do sleep 0.05; done; echo from-beside; exit 4"
    done = ci(tmp_path, f'job --beside slow bash -c "{beside}"\njob quick touch foreground-done')
    assert done.returncode == 1
    assert done.stdout.index("== quick") < done.stdout.index("from-beside")
    assert summary(done.stdout) == ["quick ok", "slow FAILED (exit 4)"]


def test_ci_passes_when_every_job_did(tmp_path: Path) -> None:
    done = ci(tmp_path, "job --beside one true\njob two true")
    assert done.returncode == 0, done.stdout + done.stderr
    assert summary(done.stdout) == ["two ok", "one ok"]
    assert "== CI total: " in done.stdout
