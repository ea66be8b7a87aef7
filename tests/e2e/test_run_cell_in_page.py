"""RunCell in a live page, in JupyterLab and Notebook 7: each output of the cell lands in the page once and is
rendered — a stream, a display_data with an image, an error — also over the stream the user's own run left.

JupyterLab's output model applies a replace of a cell's shared outputs as "insert the new, then delete the
old", and merged a new stream into the old one before deleting it: the stream showed twice in the model, then
nothing was rendered. The labextension clears first.
"""

from __future__ import annotations

from typing import Any

import pytest
from lab import (
    Lab,
    ScriptBox,
    agent_output,
    notebook_with_ids,
    open_notebook,
    open_notebook_7,
    panel_js,
    run_cell,
    wait_cell_done,
    wait_for,
)

from jupyter_agent.testing import ScriptedServer, Text, ToolUse, Turn

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
# The user's run leaves one stream; the agent's run prints, shows an image and raises.
TARGET = f"""import base64
from IPython.display import Image, display
runs = globals().get('runs', 0) + 1
print('run', runs)
if runs > 1:
    display(Image(data=base64.b64decode('{PNG}')))
    raise ValueError('boom')"""


def model_outputs(page: Any, path: str, index: int) -> list[dict[str, Any]]:
    """The outputs as the cell's output model holds them (what the page renders from)."""
    return page.evaluate(
        panel_js(
            path,
            f"const o = panel.content.model.cells.get({index}).outputs; const r = [];"
            " for (let i = 0; i < o.length; i++) r.push(o.get(i).toJSON()); return r;",
        )
    )


@pytest.mark.parametrize("ui", ["jupyterlab", "notebook7"])
def test_run_cell_puts_each_output_into_the_page_once_and_renders_it(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox], ui: str
) -> None:
    server, box = model_server
    name = f"runcell-{ui}.ipynb"
    notebook_with_ids(
        lab,
        name,
        [
            ("load", "%load_ext jupyter_agent"),
            ("target", TARGET),
            ("ask", "%%agent --mode bypassPermissions\nrun it"),
        ],
    )
    box.set(
        [Turn(blocks=[ToolUse(name="RunCell", input={"cell_id": "target"})]), Turn(blocks=[Text("Ran it.")])],
        server,
    )
    (open_notebook if ui == "jupyterlab" else open_notebook_7)(page, lab, name)
    run_cell(page, 0)
    wait_cell_done(page, 0)
    run_cell(page, 1)  # the user's own run leaves a stream behind: the agent's stream must replace it
    wait_for(lambda: model_outputs(page, name, 1) != [], 30, "the user's run's output")
    assert model_outputs(page, name, 1) == [{"output_type": "stream", "name": "stdout", "text": "run 1\n"}]
    run_cell(page, 2)
    agent_output(page).locator("text=Ran it.").wait_for(timeout=60_000)
    wait_cell_done(page, 2)

    outputs = model_outputs(page, name, 1)
    assert [o["output_type"] for o in outputs] == ["stream", "display_data", "error"], outputs
    assert outputs[0]["text"] == "run 2\n"  # the agent's run, once — not merged with the user's "run 1"
    assert outputs[1]["data"]["image/png"].strip() == PNG
    assert outputs[2]["ename"] == "ValueError" and outputs[2]["evalue"] == "boom"
    area = page.locator(".jp-Notebook .jp-Cell").nth(1).locator(".jp-OutputArea")
    assert area.locator(".jp-OutputArea-output").count() == 3
    assert area.inner_text().count("run 2") == 1 and "run 1" not in area.inner_text()
    assert area.locator("img").count() == 1
    assert "ValueError: boom" in area.locator(".jp-OutputArea-output").nth(2).inner_text()
