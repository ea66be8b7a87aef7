"""Before the first token the run's output says "thinking…" (a status for screen readers), and the answer takes
its place when it comes."""

from __future__ import annotations

from typing import Any

from lab import Lab, ScriptBox, agent_output, notebook_with_ids, open_notebook, run_cell, wait_cell_done

from jupyter_agent.testing import ScriptedServer, Text, Turn
from jupyter_agent.ui.view import WAITING_TEXT


def test_thinking_shows_until_the_first_token_then_the_answer_takes_its_place(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox]
) -> None:
    server, box = model_server
    notebook_with_ids(lab, "think.ipynb", [("load", "%load_ext jupyter_agent"), ("ask", "%%agent\nhello")])
    box.set([Turn(blocks=[Text("The answer.")], delay=4.0)], server)
    open_notebook(page, lab, "think.ipynb")
    run_cell(page, 0)
    wait_cell_done(page, 0)
    run_cell(page, 1)
    output = agent_output(page)
    waiting = output.locator(".jp-agent-waiting[role='status']")
    waiting.wait_for(timeout=30_000)
    assert waiting.inner_text() == WAITING_TEXT
    output.locator("text=The answer.").wait_for(timeout=60_000)
    assert output.locator(".jp-agent-waiting").count() == 0
    assert WAITING_TEXT not in output.inner_text()
