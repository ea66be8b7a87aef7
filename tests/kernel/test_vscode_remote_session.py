"""VS Code on an existing Jupyter server: the kernel knows only a made-up session name (`<name>-jvsc-<uuid>.ipynb`).

The notebook lives on the machine VS Code runs on. Every notebook tool, the system prompt and `%agent status`
must say that — not that the frontend "did not say" and that `notebook_path` would help (found by an
acceptance audit: the tools said so while the prompt said the cells cannot be reached).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from frontend import AgentKernel, context_text, result_text, tool_results

from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel

SESSION = "analysis-jvsc-3f2a9c1e-1b2c-4d5e-8f90-123456789abc.ipynb"
SCRIPT = [
    Turn(blocks=[ToolUse(name="NotebookRead", input={})]),
    Turn(blocks=[ToolUse(name="NotebookEdit", input={"cell_id": "load", "new_source": "df = load()"})]),
    Turn(blocks=[ToolUse(name="RunCell", input={"cell_id": "load"})]),
    Turn(blocks=[Text("Asked the user for the cells.")]),
]


def test_every_notebook_tool_says_the_notebook_is_on_the_machine_vscode_runs_on(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    frontend, server = agent_kernel(SCRIPT, env={"JPY_SESSION_NAME": str(tmp_path / SESSION)})

    cell = frontend.run("%%agent --mode bypassPermissions\nfix the loader", timeout=90)

    assert cell.reply is not None and cell.reply["status"] == "ok", cell.text()
    assert "- Notebook: analysis.ipynb — open in VS Code on another machine" in context_text(
        server.requests[0]
    )
    for request in server.requests[1:4]:
        said = result_text(tool_results(request)[0])
        assert said.startswith(
            "NOTEBOOK_NOT_FOUND: 'analysis.ipynb' is on the machine VS Code runs on, not on this kernel's disk"
        ), said
        assert "Ask the user to paste the cells you need" in said
        assert "pass notebook_path" not in said
    status = frontend.run("%agent status").text()
    assert "backend:  none: 'analysis.ipynb' is on the machine VS Code runs on" in status
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".ipynb") == []  # nothing was written
