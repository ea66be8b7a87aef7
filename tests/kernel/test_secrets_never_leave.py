"""The API key never leaves: a notebook run headless under nbclient (as papermill or CI would), in a real
kernel, with a scripted model that tries every way to read the key. The key's value must be in no request
the model API receives, in no iopub message, and not in the saved notebook."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import nbformat
import pytest
from frontend import AgentKernel
from nbclient import NotebookClient

from jupyter_agent.testing import ScriptedServer, Text, ToolUse, Turn

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.kernel

SECRET = "sk-ant-api03-Kq3N8vWz5Lr2Tx9YpB4mJh7Gd1Fs6Ac0"
DUNDER_HOP = "get_ipython.__func__.__globals__['os'].environ['ANTHROPIC_API_KEY']"
BASH_READS = 'echo "key=$ANTHROPIC_API_KEY"; cat key.txt; tr "\\0" "\\n" < /proc/$PPID/environ | grep ANTHROPIC_API_KEY'


class RecordingClient(NotebookClient):
    """nbclient's own client, keeping every iopub message it processes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.iopub: list[dict[str, Any]] = []

    def process_message(self, msg: dict[str, Any], cell: Any, cell_index: int) -> Any:
        self.iopub.append(msg)
        return super().process_message(msg, cell, cell_index)


def test_the_api_key_is_in_no_request_no_output_and_not_in_the_saved_notebook(tmp_path: Path) -> None:
    (tmp_path / "key.txt").write_text(f"deploy key: {SECRET}\n")
    script = [
        Turn(
            blocks=[
                Text("Let me look around."),
                ToolUse(name="Inspect", input={"name": DUNDER_HOP}),
                ToolUse(name="Inspect", input={"name": "settings"}),
                ToolUse(name="ListVariables", input={}),
                ToolUse(name="Read", input={"file_path": "key.txt"}),
                ToolUse(name="Bash", input={"command": BASH_READS}),
            ]
        ),
        Turn(blocks=[Text("I could not find anything useful.")]),
    ]
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        # Bash runs under the allow rule with or without bwrap here (masking is the point, not the sandbox)
        nbformat.v4.new_code_cell('%load_ext jupyter_agent\n%config AgentMagics.bash_sandbox = "off"'),
        nbformat.v4.new_code_cell(
            "import os\ntoken = os.environ['ANTHROPIC_API_KEY']\nsettings = {'key': token}"
        ),
        nbformat.v4.new_code_cell("%%agent --allow Bash\nfind the deploy key"),
    ]
    path = tmp_path / "analysis.ipynb"
    with ScriptedServer(script) as server:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
        env.update(
            PYTHONPATH=str(ROOT),
            ANTHROPIC_BASE_URL=server.url,
            ANTHROPIC_API_KEY=SECRET,
            JPY_SESSION_NAME=str(path),
            JUPYTER_DATA_DIR=str(tmp_path / "jupyter-data"),  # the saved session stays in the test
        )
        client = RecordingClient(
            notebook, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
        )
        client.execute(env=env)
        nbformat.write(notebook, path)
        bodies = [json.dumps(r.body) for r in server.recorded]

    assert len(bodies) == 2, "the scripted run did not happen"
    answers = [
        "".join(part["text"] for part in block["content"])
        for block in json.loads(bodies[1])["messages"][-1]["content"]
    ]
    hop, settings, listing, read, bash = answers
    assert hop.startswith("INVALID_ARGS: Inspect does not follow '__func__'")
    assert "{'key': '[redacted: ANTHROPIC_API_KEY]'}" in settings
    # `token` names a credential: the listing gives its type and length, never its characters
    assert "token" in listing and "(value not shown: the name says it holds a credential" in listing
    assert "deploy key: [redacted: ANTHROPIC_API_KEY]" in read
    # Bash's own environment has no key (under bwrap /proc/$PPID/environ is not the kernel's, so grep may fail)
    assert "key=\ndeploy key: [redacted: ANTHROPIC_API_KEY]" in bash
    for body in bodies:
        assert SECRET not in body
    iopub = json.dumps(client.iopub, default=str)
    assert "[redacted: ANTHROPIC_API_KEY]" in iopub
    assert SECRET not in iopub
    saved = path.read_text()
    assert "I could not find anything useful." in saved
    assert SECRET not in saved


def test_an_mcp_servers_failure_is_printed_without_the_token_in_its_command(
    agent_kernel: AgentKernel,
) -> None:
    token = "dpl-0123456789abcdef"
    frontend, _server = agent_kernel([], env={"SERVICE_TOKEN": token})
    failing = {"command": "sh", "args": ["-c", f"echo auth failed for {token} >&2; exit 3"]}
    frontend.run(f"%config AgentMagics.mcp_servers = {{'deploy': {failing!r}}}")
    seen: list[str] = []
    deadline = time.monotonic() + 60
    while not any("deploy  failed" in text for text in seen):
        assert time.monotonic() < deadline, seen
        seen.append(frontend.run("%agent mcp").text())
    seen.append(frontend.run("1 + 1").text())  # the next cell prints the servers' report lines
    shown = "\n".join(seen)
    assert "jupyter_agent: MCP server 'deploy' did not start" in shown
    assert token not in shown and "[redacted: SERVICE_TOKEN]" in shown
