"""A background Task's result shown in the cell that started it: the cell ends while the sub-agent works; when it
finishes, the Task card of that cell is redrawn with the result (done, first lines of the report), as that cell's
output, while a later cell runs and gets none of it."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from frontend import Execution, tool_results
from test_review_in_kernel import open_review_comm, statics

from jupyter_agent.testing import Text, ToolUse, Turn
from jupyter_agent.ui.gate import STATIC_MIME

pytestmark = pytest.mark.kernel

REPORT = "The loader is io/load.py: load_csv reads the file.\nIt is called from main.py."


def _is_subagent(body: dict[str, Any]) -> bool:
    return "You are a sub-agent" in body["system"][0]["text"]


def _task_displays(cell: Execution) -> list[dict[str, Any]]:
    return [m for m in cell.outputs if m["msg_type"] in ("display_data", "update_display_data")]


def test_the_background_result_is_drawn_into_the_started_cell_and_not_into_a_later_one(
    agent_kernel: Any, tmp_path: Path
) -> None:
    release = threading.Event()  # the sub-agent answers only once the started cell has ended

    def script(body: dict[str, Any], index: int) -> Turn:
        if _is_subagent(body):
            assert release.wait(60), "the test never released the sub-agent"
            return Turn(blocks=[Text(REPORT)])
        if not tool_results(body):
            task = {
                "description": "Find the loader",
                "prompt": "Find the CSV loader.",
                "run_in_background": True,
            }
            return Turn(blocks=[ToolUse(name="Task", input=task, id="toolu_bg")])
        return Turn(blocks=[Text("The search runs in the background.")])

    frontend, _ = agent_kernel(script)
    page = open_review_comm(frontend)  # the labextension's: it writes what a finished cell cannot be sent
    started = frontend.run("%%agent\nfind the loader in the background")
    assert started.reply is not None and started.reply["status"] == "ok", started.text()
    assert "in the background as agent_1" in started.text() and "io/load.py" not in started.text()
    shown_before = len(started.outputs)

    go_on = tmp_path / "go-on"
    later = frontend.execute(
        f"import os, time\nwhile not os.path.exists({str(go_on)!r}):\n    time.sleep(0.05)\nprint('later cell')"
    )
    release.set()
    frontend.wait(lambda: "io/load.py" in started.html(), 30, "the result in the started cell")
    go_on.write_text("")
    frontend.wait(lambda: later.done, 30, "the later cell")

    [redrawn] = [m for m in started.outputs[shown_before:] if "io/load.py" in str(m["content"])]
    assert redrawn["msg_type"] == "update_display_data"  # the Task card itself, redrawn in place
    card_ids = {m["content"]["transient"]["display_id"] for m in _task_displays(started)[:shown_before]}
    assert redrawn["content"]["transient"]["display_id"] in card_ids
    data = redrawn["content"]["data"]
    assert (
        "done in the background (agent_1)" in data["text/plain"]
        and "It is called from main.py." in data["text/html"]
    )
    assert later.text().strip() == "later cell"
    assert not _task_displays(later)
    # JupyterLab applies no update to a finished cell: the card was marked while the cell ran, and the page
    # is sent the ended rendering under that mark, to write into the output
    marker = redrawn["content"]["data"][STATIC_MIME]
    assert any(
        m["content"]["data"].get(STATIC_MIME) == marker for m in _task_displays(started)[:shown_before]
    )
    frontend.wait(lambda: bool(statics(page)), 30, "the static view")
    [static] = [m for m in statics(page) if m["model_id"] == marker["model_id"]]
    assert "It is called from main.py." in static["data"]["text/html"] and static["live"] is False
