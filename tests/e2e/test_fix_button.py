"""In JupyterLab + Chromium: a cell raises, "Fix with agent" under its traceback inserts a `%agent fix` cell
right below the failing cell and runs it; the agent is sent the traceback."""

from __future__ import annotations

from typing import Any

from lab import (
    Lab,
    ScriptBox,
    cell_output,
    live_sources,
    open_notebook,
    run_cell,
    wait_cell_done,
    write_notebook,
)

from jupyter_agent.testing import ScriptedServer, Text, Turn


def test_fix_with_agent_inserts_a_fix_cell_below_the_failing_cell_and_runs_it(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox]
) -> None:
    server, box = model_server
    box.set([Turn(blocks=[Text("The **key 'March'** is missing from `sales`.")])], server)
    write_notebook(
        lab,
        "fix.ipynb",
        ["%load_ext jupyter_agent", "sales = {'Jan': 1}\nsales['March']", "print('after')"],
    )
    open_notebook(page, lab, "fix.ipynb")
    run_cell(page, 0)
    wait_cell_done(page, 0)
    run_cell(page, 1)
    failing = cell_output(page, 1)
    button = failing.locator("button.jp-agent-fix-button")
    button.wait_for(timeout=60_000)
    assert "KeyError" in failing.inner_text()
    sent_before = len(server.requests)
    button.click()
    page.wait_for_function(
        "() => document.querySelectorAll('.jp-Notebook .jp-Cell').length === 4", timeout=30_000
    )
    assert live_sources(page, "fix.ipynb") == [
        "%load_ext jupyter_agent",
        "sales = {'Jan': 1}\nsales['March']",
        "%agent fix",
        "print('after')",
    ]
    cell_output(page, 2).locator("text=is missing from").wait_for(timeout=60_000)
    wait_cell_done(page, 2)
    request = server.requests[sent_before]
    sent = "\n".join(b.get("text", "") for b in request["messages"][-1]["content"] if b.get("type") == "text")
    assert "KeyError: 'March'" in sent and "sales['March']" in sent
    assert cell_output(page, 3).inner_text().strip() == ""  # the cell after it was not run
