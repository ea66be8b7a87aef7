"""`@name` and `@cell:ID` in a real kernel: what the user points at goes with that request, in its user
message (never the system prompt), and a name that is not there costs one line, not the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest
from frontend import AgentKernel

from jupyter_agent.base.harness_texts import is_harness_text
from jupyter_agent.testing import Text, Turn

pytestmark = pytest.mark.kernel


def last_user_text(request: dict[str, Any]) -> str:
    content = request["messages"][-1]["content"]
    texts = [block.get("text", "") for block in content if block.get("type") == "text"]
    return "\n".join(text for text in texts if not is_harness_text(text))  # the user's, not the context


def test_at_name_attaches_the_variable_and_an_unknown_name_is_one_line(agent_kernel: AgentKernel) -> None:
    frontend, server = agent_kernel([Turn(blocks=[Text("It has two rows.")]), Turn(blocks=[Text("Again.")])])
    frontend.run("import pandas as pd\nsales = pd.DataFrame({'month': ['Jan', 'Feb'], 'total': [3, 4]})")
    cell = frontend.run(
        "%%agent\nwhy does @sales have 2 rows, and where is @forecast? (ana@example.com asked)"
    )
    assert cell.reply is not None and cell.reply["status"] == "ok", cell.text()
    sent = last_user_text(server.requests[0])
    assert sent.startswith("why does @sales have 2 rows")
    assert '<reference to="@sales">\nsales: pandas.DataFrame, shape/len (2, 2)' in sent
    assert "  0   Jan      3" in sent  # the head
    assert "@example" not in sent.split("\n", 1)[1]  # the e-mail address is no reference
    assert "not attached: @forecast: no variable 'forecast' in the kernel" in sent  # the model is told
    assert "@sales" not in server.requests[0]["system"]  # the system prompt stays the same from run to run
    lines = [line for line in cell.text().splitlines() if "not attached" in line]
    assert len(lines) == 1 and "@forecast: no variable 'forecast' in the kernel" in lines[0]
    assert "It has two rows." in cell.text()
    plain = frontend.run("%%agent\nand now?")
    assert "<reference" not in last_user_text(server.requests[1])
    assert plain.reply is not None and plain.reply["status"] == "ok"


def test_at_cell_attaches_the_cell_with_its_outputs(agent_kernel: AgentKernel, tmp_path: Path) -> None:
    notebook = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("print(41 + 1)")
    cell.id = "answer1"
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="42\n")]
    notebook.cells = [cell]
    nbformat.write(notebook, tmp_path / "analysis.ipynb")  # this kernel's notebook; no page is open
    frontend, server = agent_kernel([Turn(blocks=[Text("It prints 42.")])])
    frontend.run("%agent what does @cell:answer1 print?")
    sent = last_user_text(server.requests[0])
    assert '<reference to="@cell:answer1">' in sent and "print(41 + 1)" in sent and "42" in sent
