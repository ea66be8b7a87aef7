"""`scripts/install.sh` says what it is doing: every slow step (a venv, pip, npm, apt) has a `say` line a few lines
before it, and the install ends with a line saying it is done and how long it took. (A fresh install printed
nothing of its own for 83 s.)"""

from __future__ import annotations

import re
from pathlib import Path

SCRIPT = (Path(__file__).resolve().parents[2] / "scripts" / "install.sh").read_text(encoding="utf-8")
SLOW = re.compile(r"-m venv |pip install |npm ci |apt-get install ")


def test_every_slow_step_is_announced_just_before_it_runs() -> None:
    lines = [line.strip() for line in SCRIPT.splitlines()]
    steps = [i for i, line in enumerate(lines) if SLOW.search(line) and not line.startswith("#")]
    assert len(steps) >= 6
    for i in steps:
        before = [line for line in lines[max(0, i - 5) : i] if line and not line.startswith("#")]
        assert any(line.startswith("say ") for line in before), lines[i]


def test_the_install_says_when_it_is_done() -> None:
    assert (
        'say "installed the package and its JupyterLab extension into .venv ($((SECONDS - STARTED)) s)"'
        in SCRIPT
    )
    assert SCRIPT.rstrip().endswith('say "test install done ($((SECONDS - STARTED)) s)"')
