"""In JupyterLab + Chromium: run a %%agent cell, approve an edit, see the diff and the answer; untrusted
text never runs script in the page."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from lab import (
    ARTIFACTS,
    Lab,
    ScriptBox,
    after_pending_tasks,
    cell_output,
    open_notebook,
    run_cell,
    wait_cell_done,
    write_notebook,
)

from jupyter_agent.testing import ScriptedServer, Text, ToolUse, Turn

README_SHOT = Path(__file__).resolve().parents[2] / "docs" / "images" / "approval.png"


def test_approve_an_edit_and_see_the_diff_and_the_answer(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox]
) -> None:
    server, box = model_server
    (lab.root / "loader.py").write_text("for month in range(1, 3):\n    load(month)\n")
    box.set(
        [
            Turn(
                blocks=[Text("Reading the loader."), ToolUse(name="Read", input={"file_path": "loader.py"})]
            ),
            Turn(
                blocks=[
                    Text("`range(1, 3)` stops before March; fixing it."),
                    ToolUse(
                        name="Edit",
                        input={
                            "file_path": "loader.py",
                            "old_string": "range(1, 3)",
                            "new_string": "range(1, 4)",
                        },
                    ),
                ]
            ),
            Turn(blocks=[Text("**Fixed**: the loader now reads March too.")]),
        ],
        server,
    )
    write_notebook(
        lab, "edit.ipynb", ["%load_ext jupyter_agent", "%%agent\nWhy is March missing? Fix loader.py."]
    )
    open_notebook(page, lab, "edit.ipynb")
    run_cell(page, 0)
    wait_cell_done(page, 0)
    run_cell(page, 1)
    output = cell_output(page, 1)
    approve = output.locator("button.jupyter-button:has-text('Allow once')")
    approve.wait_for(timeout=60_000)
    output.locator(".jp-agent-approval").wait_for()
    assert "range(1, 4)" in output.locator(".jp-agent-approval").inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "approval-pending.png"))
    if os.environ.get("UPDATE_README_SCREENSHOT"):  # refresh docs/images/approval.png on purpose only
        shutil.copy(ARTIFACTS / "approval-pending.png", README_SHOT)
    approve.click()
    output.locator("text=the loader now reads March too").wait_for(timeout=60_000)
    wait_cell_done(page, 1)
    assert (lab.root / "loader.py").read_text() == "for month in range(1, 4):\n    load(month)\n"
    text = output.inner_text()
    assert "Edited loader.py (+1 −1)" in text  # the card's summary, in words
    assert "allowed once" in text
    output.locator(".jp-agent-card summary:has-text('Edited loader.py')").click()
    assert output.locator(".jp-agent-card[data-status='done'] >> text=range(1, 4)").count() >= 1


def test_html_in_a_file_the_agent_reads_never_runs_in_the_page(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox]
) -> None:
    server, box = model_server
    payload = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script><a href="javascript:window.__pwned=3">x</a>'
    (lab.root / "evil.txt").write_text(payload + "\n")
    box.set(
        [
            Turn(blocks=[ToolUse(name="Read", input={"file_path": "evil.txt"})]),
            Turn(blocks=[Text(f"The file says: {payload}\n\n[click me](javascript:window.__pwned=4)")]),
        ],
        server,
    )
    write_notebook(lab, "xss.ipynb", ["%load_ext jupyter_agent", "%%agent\nWhat does evil.txt say?"])
    open_notebook(page, lab, "xss.ipynb")
    page.evaluate("() => { window.__pwned = 0; }")
    run_cell(page, 0)
    wait_cell_done(page, 0)
    run_cell(page, 1)
    output = cell_output(page, 1)
    output.locator("text=The file says:").wait_for(timeout=60_000)
    wait_cell_done(page, 1)
    output.locator(".jp-agent-card summary").first.click()  # open the card so the file's text is rendered too
    link = output.locator("a:has-text('click me')")
    assert not (link.get_attribute("href") or "").lower().startswith("javascript")
    link.click()
    after_pending_tasks(page)
    assert page.evaluate("() => window.__pwned") == 0
    assert "<script>window.__pwned=2</script>" in output.inner_text()
    assert output.locator("img").count() == 0 and output.locator("script").count() == 0
