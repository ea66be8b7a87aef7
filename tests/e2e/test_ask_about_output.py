"""In JupyterLab and Notebook 7 + Chromium: right-click an output, "Ask the agent about this output" inserts a
`%%agent` cell below with a reference to that output, and running it sends that output (here an image) with
the request."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from lab import (
    Lab,
    ScriptBox,
    cell_output,
    live_sources,
    open_notebook,
    open_notebook_7,
    run_cell,
    wait_cell_done,
    write_notebook,
)

from jupyter_agent.testing import ScriptedServer, Text, Turn

#: A 1x1 PNG, displayed by the cell the user asks about.
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
    )
).decode()
PLOT_CELL = (
    "import base64\nfrom IPython.display import Image, display\n"
    "print('total: 42')\n"
    f"display(Image(data=base64.b64decode({PNG!r})))"
)


@pytest.mark.parametrize("frontend", ["lab", "notebook7"])
def test_ask_about_an_output_inserts_an_agent_cell_that_sends_that_output(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox], frontend: str
) -> None:
    server, box = model_server
    box.set([Turn(blocks=[Text("A single **blue** pixel.")])], server)
    name = f"ask-{frontend}.ipynb"
    write_notebook(lab, name, ["%load_ext jupyter_agent", PLOT_CELL, "print('after')"])
    (open_notebook if frontend == "lab" else open_notebook_7)(page, lab, name)
    run_cell(page, 0)
    wait_cell_done(page, 0)
    run_cell(page, 1)
    wait_cell_done(page, 1)
    outputs = cell_output(page, 1).locator(":scope > .jp-OutputArea-child")
    outputs.nth(1).locator("img").wait_for(timeout=30_000)
    cell_id = page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells[1].getId()"
    )
    outputs.nth(1).locator("img").click(button="right")
    item = page.locator(".lm-Menu-itemLabel:has-text('Ask the agent about this output')")
    item.wait_for(timeout=10_000)
    item.click()
    page.wait_for_function(
        "() => document.querySelectorAll('.jp-Notebook .jp-Cell').length === 4", timeout=30_000
    )
    sources = live_sources(page, name)
    assert sources[2] == f"%%agent\n@output:{cell_id}:2 "  # below the cell, the image is its 2nd output
    assert sources[3] == "print('after')"
    page.keyboard.type("what does this show?")  # the cursor waits after the reference
    assert live_sources(page, name)[2] == f"%%agent\n@output:{cell_id}:2 what does this show?"
    sent_before = len(server.requests)
    page.keyboard.press("Shift+Enter")
    cell_output(page, 2).locator("text=blue").wait_for(timeout=60_000)
    wait_cell_done(page, 2)
    content = server.requests[sent_before]["messages"][-1]["content"]
    text = "\n".join(block.get("text", "") for block in content if block.get("type") == "text")
    assert f"@output:{cell_id}:2 what does this show?" in text
    assert f'<reference to="@output:{cell_id}:2">' in text and "total: 42" not in text  # only that output
    images = [block for block in content if block.get("type") == "image"]
    assert [image["source"]["data"] for image in images] == [PNG], (images, PNG)
    assert cell_output(page, 3).inner_text().strip() == ""  # nothing else ran
