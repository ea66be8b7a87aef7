"""A 200-line NotebookEdit streamed slowly: the card opens while the model writes it and shows the source
written so far (whole lines, masked) in update_display_data messages before the call is complete; the same
card then shows the complete call, which runs only then."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbformat
import pytest
from frontend import AgentKernel, Execution
from nbformat.v4 import new_notebook

from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel

TOKEN = "tok-9d2f71c4a8e35b60"
SOURCE = "".join(f"value_{i} = {i} * 2\n" for i in range(199)) + f'token = "{TOKEN}"\n'


def _card_messages(cell: Execution) -> list[dict[str, Any]]:
    return [
        m for m in cell.outputs
        if m["msg_type"] in ("display_data", "update_display_data")
        and "jp-agent-card" in m["content"].get("data", {}).get("text/html", "")
    ]  # fmt: skip


def test_a_slow_200_line_notebook_edit_shows_its_partial_source_before_the_block_ends(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    nbformat.write(new_notebook(), tmp_path / "long.ipynb")  # not the kernel's own: written as a file
    call = ToolUse(
        name="NotebookEdit",
        input={
            "notebook_path": "long.ipynb",
            "edit_mode": "insert",
            "cell_type": "code",
            "new_source": SOURCE,
        },
    )
    script = [Turn(blocks=[call], chunk_size=48, delay=0.02), Turn(blocks=[Text("inserted")])]
    frontend, _server = agent_kernel(script, env={"SERVICE_TOKEN": TOKEN})
    frontend.run("%agent mode acceptEdits")
    cell = frontend.run("%%agent\nwrite the long cell", timeout=120)
    cards = _card_messages(cell)
    assert cards[0]["msg_type"] == "display_data"
    assert 'data-status="writing"' in cards[0]["content"]["data"]["text/html"]  # opened at the block's start
    assert len({m["content"]["transient"]["display_id"] for m in cards}) == 1  # one card, grown in place
    statuses = [
        m["content"]["data"]["text/html"].split('data-status="', 1)[1].split('"', 1)[0] for m in cards
    ]
    written = statuses.index("pending")  # the block ended: the complete call
    partial = [m["content"]["data"]["text/plain"] for m in cards[1:written]]
    lines = [int(text.split("writing… ", 1)[1].split(" ", 1)[0]) for text in partial]
    assert len(lines) >= 3 and lines == sorted(lines) and 0 < lines[0] < 200  # grew while being written
    growing = [m["content"]["data"]["text/html"] for m in cards[1:written]]
    assert "value_0 = 0 * 2" in growing[0] and "value_198" not in growing[0]
    assert statuses[written:][-1] == "done", (statuses, cards[-1]["content"]["data"]["text/plain"])
    assert TOKEN not in json.dumps(
        cell.outputs, default=str
    )  # masked on the card as it was written, and after
    inserted = nbformat.read(tmp_path / "long.ipynb", as_version=4).cells
    assert [c.source for c in inserted] == [SOURCE]  # the complete call ran, once
