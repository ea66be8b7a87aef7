"""notebooks/quickstart.ipynb, run top to bottom in a real kernel as a newcomer would, offline: the scripted
model finds the bug, asks to edit, the edit is approved and March is back; the run's changes are listed, undone,
and a one-line question is answered. Run All a second time in the same kernel does all of it again, the same way."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import nbformat
import pytest
from frontend import Execution, KernelFrontend

from jupyter_agent.agent.pricing import OFFLINE_DEMO_ENV

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.kernel

#: What may differ between two runs of the same notebook: durations, token counts, what the prompt cache held
#: (the second pass reads what the first wrote: the same opening, so the same prefix), the session file's name.
VOLATILE = [
    (re.compile(r"\b\d+(\.\d+)?s\b"), "Ns"),
    (re.compile(r"[\d,]+ (in|out)\b"), r"N \1"),
    (re.compile(r"cache [\d,]+ read / [\d,]+ written"), "cache N read / N written"),
    (re.compile(r"\(\d+% read\)"), "(N% read)"),
    (re.compile(r"~[\d,]+ of"), "~N of"),
    (re.compile(r"[\w-]+\.jsonl"), "SESSION.jsonl"),
]


def shown(execution: Execution) -> str:
    """What the cell shows once it is done: each display at its last update, streams joined (not the frames
    a notebook shows while text streams in, whose cut depends on timing)."""
    outputs: list[str] = []
    by_display: dict[str, int] = {}
    for msg in execution.outputs:
        content: dict[str, Any] = msg["content"]
        kind = msg["msg_type"]
        if kind == "stream":
            text = str(content["text"])
        elif kind == "error":
            text = "\n".join(content["traceback"])
        else:
            text = str(content.get("data", {}).get("text/plain", ""))
        display_id = content.get("transient", {}).get("display_id")
        if kind == "update_display_data":
            if display_id in by_display:  # else: an earlier cell's display (its review frozen meanwhile)
                outputs[by_display[display_id]] = text
            continue
        if display_id is not None:
            by_display[display_id] = len(outputs)
        outputs.append(text)
    joined = "\n".join(outputs)
    for pattern, replacement in VOLATILE:
        joined = pattern.sub(replacement, joined)
    return joined


def run_all(frontend: KernelFrontend, notebook: Any) -> dict[str, str]:
    """Every code cell in order, as Run All does, clicking "Allow once" when an approval appears; what each
    cell shows, by source."""
    shown_by_source: dict[str, str] = {}
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        approvals = len(frontend.buttons("Allow once"))
        execution = frontend.execute(cell.source)
        if cell.source.startswith("%%agent"):
            frontend.wait(
                lambda approvals=approvals, execution=execution: (
                    len(frontend.buttons("Allow once")) > approvals or execution.done
                ),
                60,
                "this run's approval",
            )
            assert not execution.done, f"the run ended without asking:\n{execution.text()}"
            frontend.click("Allow once")
        frontend.wait(lambda execution=execution: execution.done, 120, f"cell {cell.source[:30]!r}")
        assert execution.reply is not None and execution.reply["status"] == "ok", execution.text()
        shown_by_source[cell.source] = shown(execution)
    return shown_by_source


def by_comment(outputs: dict[str, str], comment: str) -> str:
    return next(text for source, text in outputs.items() if source.rstrip().endswith(comment))


def test_the_quickstart_runs_twice_in_one_kernel_without_a_key_offline_both_times_with_the_same_outputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [n for n in os.environ if n.startswith("ANTHROPIC_") or n == OFFLINE_DEMO_ENV]:
        monkeypatch.delenv(name)  # the kernel inherits this process's environment
    shutil.copy(ROOT / "notebooks" / "quickstart.ipynb", tmp_path / "quickstart.ipynb")
    notebook = nbformat.read(tmp_path / "quickstart.ipynb", as_version=4)
    # This frontend answers the widget probe, but on a loaded machine the first answer of a fresh kernel (still
    # importing in the background) once took longer than the 2 s default, and the run went headless.
    profile = tmp_path / "ipython" / "profile_default"
    profile.mkdir(parents=True)
    (profile / "ipython_kernel_config.py").write_text("c.AgentMagics.probe_timeout = 30.0\n")
    env = {
        "PYTHONPATH": str(ROOT),
        "JPY_SESSION_NAME": str(tmp_path / "quickstart.ipynb"),
        "IPYTHONDIR": str(tmp_path / "ipython"),
    }
    frontend = KernelFrontend(tmp_path, env=env)
    try:
        first = run_all(frontend, notebook)
        second = run_all(frontend, notebook)
        approvals_with_the_diff = sum(
            "-    for month in range(1, 3):" in str(widget.state.get("value"))
            and "+    for month in range(1, 4):" in str(widget.state.get("value"))
            for widget in frontend.widgets.values()
        )
    finally:
        frontend.close()

    assert second == first
    everything = "\n".join(first.values())
    assert "using Claude" not in everything and "sk-ant" not in everything
    assert next(iter(first.values())).startswith("offline demo: a scripted model on this machine answers")
    # in order: March missing, a run that reads, asks with a diff and fixes, March back, the run's change
    # reviewed (Keep / Undo), undone, March gone again, a one-line question answered
    assert "['1', '2']" in by_comment(first, "# where is March?")
    agent = next(text for source, text in first.items() if source.startswith("%%agent"))
    assert "Read demo/sales_loader.py" in agent and "Edited demo/sales_loader.py (+1 −1)" in agent
    assert "Edit demo/sales_loader.py: allowed once" in agent and "**Fixed.**" in agent
    assert "offline demo · no charge" in agent
    assert approvals_with_the_diff == 2  # one per run, each showing the change before it was made
    assert "['1', '2', '3']" in by_comment(first, "# March is back")
    assert "demo/sales_loader.py changed +1 −1 · not reviewed" in first["%agent review"]
    assert "restored demo/sales_loader.py" in first["%agent undo"]
    assert "['1', '2']" in by_comment(first, "# March is gone again")
    question = next(text for source, text in first.items() if source.startswith("%agent why"))
    assert "stops *before* 3" in question and "offline demo · no charge" in question
    assert "range(1, 3)" in (tmp_path / "demo" / "sales_loader.py").read_text()
    # offline nothing is billed and there is no real model: `%agent status` says so
    status = first["%agent status"]
    assert "model:    offline demo · no charge" in status and "cost:     offline demo · no charge" in status
    assert "$" not in status and "claude-" not in status


def test_running_the_quickstart_in_the_checkout_leaves_git_clean() -> None:
    """Its demo project is written next to the notebook: notebooks/demo/ for the tracked notebook, and
    playground/demo/ for the copy `scripts/lab.sh` opens; git ignores both."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    paths = [
        "notebooks/demo/sales_loader.py",
        "notebooks/demo/2026-03.csv",
        "playground/quickstart.ipynb",
        "playground/demo/sales_loader.py",
    ]
    ignored = subprocess.run(["git", "check-ignore", *paths], cwd=ROOT, capture_output=True, text=True)
    assert ignored.stdout.split() == paths
