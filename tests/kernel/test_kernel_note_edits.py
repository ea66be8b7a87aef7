"""The `<kernel-activity>` note tells the model which cells it read were edited since, and leaves out the
package's own `%load_ext jupyter_agent` (issue #42).

A real kernel, the page answered by `NotebookPage` (the labextension's side of the comm), the scripted server
recording each request: the tests read exactly what the model was sent.
"""

from __future__ import annotations

from typing import Any

import pytest
from frontend import AgentKernel
from notebook_page import NotebookPage

from jupyter_agent.notebook.cells import new_cell_json
from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel

EDITED = "Cells you read that were edited since (read them again before editing): "


def user_texts(request: dict[str, Any]) -> str:
    content = request["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "\n".join(block.get("text", "") for block in content if block.get("type") == "text")


def test_a_read_cell_the_user_edits_is_named_once_by_id_and_an_unread_one_is_not(
    agent_kernel: AgentKernel,
) -> None:
    script = [
        Turn(blocks=[ToolUse(name="NotebookRead", input={"cell_ids": ["a1", "c1"]})]),
        Turn(blocks=[Text("a is 1, c is 1.")]),
        Turn(blocks=[Text("Noted.")]),
        Turn(blocks=[Text("Noted again.")]),
    ]
    frontend, server = agent_kernel(script)
    page = NotebookPage(frontend)
    page.cells += [
        new_cell_json("code", "b = 1", cell_id="b1"),
        new_cell_json("code", "c = 1", cell_id="c1"),
    ]
    first = frontend.run("%%agent\nwhat are a and c?")
    assert first.reply is not None and first.reply["status"] == "ok", first.text()
    page.cells[0]["source"] = "a = 2  # the user's edit, not run"
    page.cells[1]["source"] = "b = 2"  # never read by the model: its edit is not this kind of news
    second = frontend.run("%%agent\nlook again")
    assert second.reply is not None and second.reply["status"] == "ok", second.text()
    frontend.run("%%agent\nand again")
    opening, _, after_edit, later = server.requests
    assert EDITED not in user_texts(opening)
    assert EDITED + "'a1'\n" in user_texts(after_edit)  # c1, read and unchanged, is not named; b1 never read
    assert "<kernel-activity>" not in user_texts(later)  # told once; nothing else happened since
    # The note is in the user message only; the system prompt stays byte-identical.
    assert opening["system"] == after_edit["system"] == later["system"]


def test_the_packages_own_load_ext_is_not_the_users_work(agent_kernel: AgentKernel) -> None:
    frontend, server = agent_kernel([Turn(blocks=[Text("Noted.")]), Turn(blocks=[Text("Noted.")])])
    frontend.run("%%agent\nhello")  # the fixture's `%load_ext jupyter_agent` ran just before
    frontend.run("%reload_ext jupyter_agent\nrows = 5")
    frontend.run("%%agent\nagain")
    opening, second = server.requests
    assert "<kernel-activity>" not in user_texts(opening)
    assert "%load_ext jupyter_agent" not in user_texts(opening)
    note = user_texts(second)
    assert "<kernel-activity>" in note and ": rows = 5\n" in note
    assert "%reload_ext" not in note
