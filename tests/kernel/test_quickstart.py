"""notebooks/quickstart.ipynb, run top to bottom in a real kernel as a newcomer would, offline: the scripted
model finds the bug, asks to edit, the edit is approved, and March is back."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest
from frontend import KernelFrontend

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.kernel


def test_the_quickstart_runs_offline_and_fixes_the_loader(tmp_path: Path) -> None:
    shutil.copy(ROOT / "notebooks" / "quickstart.ipynb", tmp_path / "quickstart.ipynb")
    notebook = nbformat.read(tmp_path / "quickstart.ipynb", as_version=4)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(PYTHONPATH=str(ROOT), JPY_SESSION_NAME=str(tmp_path / "quickstart.ipynb"))
    frontend = KernelFrontend(tmp_path, env=env)
    try:
        outputs: list[str] = []
        for cell in notebook.cells:
            if cell.cell_type != "code":
                continue
            execution = frontend.execute(cell.source)
            if cell.source.startswith("%%agent"):
                frontend.click("Allow once", timeout=60)
            frontend.wait(lambda execution=execution: execution.done, 120, f"cell {cell.source[:30]!r}")
            assert execution.reply is not None and execution.reply["status"] == "ok", execution.text()
            outputs.append(execution.text())
    finally:
        frontend.close()
    before, agent, after = outputs[2], outputs[3], outputs[4]
    assert "['1', '2']" in before
    assert "Edit demo/sales_loader.py" in agent and "**Fixed.**" in agent
    assert "['1', '2', '3']" in after
    assert "range(1, 4)" in (tmp_path / "demo" / "sales_loader.py").read_text()
    assert "sk-ant" not in "".join(outputs)
    # offline nothing is billed and there is no real model: the footer and `%agent status` say so
    status = outputs[-1]
    assert "offline demo · no charge" in agent and "$" not in agent.splitlines()[-1]
    assert "model:    offline demo · no charge" in status and "cost:     offline demo · no charge" in status
    assert "$" not in status and "claude-" not in status


def test_running_the_quickstart_in_the_checkout_leaves_git_clean() -> None:
    """Its demo project is written next to the notebook, in notebooks/demo/, which git ignores."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    paths = ["notebooks/demo/sales_loader.py", "notebooks/demo/2026-03.csv"]
    ignored = subprocess.run(["git", "check-ignore", *paths], cwd=ROOT, capture_output=True, text=True)
    assert ignored.stdout.split() == paths
