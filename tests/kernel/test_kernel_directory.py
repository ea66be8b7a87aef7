"""The kernel's working directory is its own, wherever its notebook lives; no tool ever creates a root.

Through a gateway (JupyterHub, Kubernetes, Enterprise Gateway) the kernel runs on another machine; with
`JPY_SESSION_NAME` forwarded it names the notebook where the Jupyter server has it — a directory that may not
exist on the kernel's machine. Relative paths must land in the kernel's own directory, and nothing may be
created along the forwarded path; a configured root that does not exist is a clear error before the run.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from frontend import AgentKernel, KernelFrontend, context_text, result_text, tool_results

from jupyter_agent.testing import TEST_API_KEY, ScriptedServer, Text, ToolUse, Turn

pytestmark = pytest.mark.kernel

ROOT = Path(__file__).resolve().parents[2]


def test_with_a_forwarded_notebook_path_that_does_not_exist_here_files_land_in_the_kernels_directory(
    tmp_path: Path,
) -> None:
    kernel_home = tmp_path / "kernel-host"
    kernel_home.mkdir()
    lab_side = tmp_path / "lab-host" / "home" / "me" / "work"  # the server's directory: not on this machine
    script = [
        Turn(blocks=[ToolUse(name="Write", input={"file_path": "notes.md", "content": "n\n"})]),
        Turn(blocks=[Text("written")]),
    ]
    with ScriptedServer(script) as server:
        env = {
            "PYTHONPATH": str(ROOT),
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": TEST_API_KEY,
            "JPY_SESSION_NAME": str(lab_side / "analysis.ipynb"),
        }
        frontend = KernelFrontend(kernel_home, env=env)
        try:
            frontend.run("%load_ext jupyter_agent")
            cell = frontend.run("%%agent --mode acceptEdits\nwrite notes", timeout=90)
        finally:
            frontend.close()
    assert cell.reply is not None and cell.reply["status"] == "ok", cell.text()
    assert result_text(tool_results(server.requests[1])[0]) == "Created 'notes.md' (1 lines)."
    assert (kernel_home / "notes.md").read_text() == "n\n"
    assert not (tmp_path / "lab-host").exists()  # no part of the forwarded path was created
    context = context_text(server.requests[0])
    assert f"- Working directory: {kernel_home.resolve()} (relative paths start here)" in context


def test_a_root_that_does_not_exist_is_a_clear_error_and_nothing_is_created(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    frontend, server = agent_kernel([Turn(blocks=[Text("never sent")])])
    missing = tmp_path / "mounted" / "data"
    frontend.run(f"%config AgentMagics.roots = [{str(missing)!r}]")
    cell = frontend.run("%%agent\nlook", timeout=60)
    assert cell.reply is not None and cell.reply["status"] == "error"
    assert f"the allowed root '{missing}' does not exist on this kernel's machine" in cell.text()
    assert "tools never create a root or its parents" in cell.text()
    assert not (tmp_path / "mounted").exists()
    assert server.requests == []
