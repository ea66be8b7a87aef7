"""The system prompt names the notebook and what can be done with it where it is open; it stays byte-identical
across a conversation (the prompt cache), so a frontend learned later is told once, in the request."""

from __future__ import annotations

from pathlib import Path

from agent_testkit import HarnessFactory

from jupyter_agent.agent.prompt import notebook_facts
from jupyter_agent.notebook.frontend import ExecuteFacts, Frontend, KernelSignals
from jupyter_agent.notebook.provider import NotebookProvider
from jupyter_agent.testing import Text, Turn

NB = Path("/home/me/work/analysis.ipynb")


def system_text(body: dict[str, object]) -> str:
    system = body["system"]
    assert isinstance(system, list)
    return "".join(block["text"] for block in system)


def test_each_frontend_gets_its_own_notebook_line() -> None:
    lab = Frontend(kind="jupyterlab", notebook=NB, on_disk=True)
    assert notebook_facts(lab) == (
        str(NB),
        "open in JupyterLab with the jupyter-agent extension: NotebookRead reads the live page, NotebookEdit "
        "changes it live (the user can undo) and RunCell writes outputs into it; the user saves the file",
    )
    gateway = Frontend(kind="gateway", notebook=Path("/srv/kernel/work/a.ipynb"), page_path="work/a.ipynb")
    shown, note = notebook_facts(gateway)
    assert shown == "work/a.ipynb" and "not on this kernel's disk: use the notebook tools for it" in note
    vscode = Frontend(kind="vscode", notebook=NB, on_disk=True)
    assert notebook_facts(vscode)[1].startswith("open in VS Code: NotebookRead reads its saved file")
    remote = Frontend(kind="vscode", name="analysis.ipynb")
    assert notebook_facts(remote) == (
        "analysis.ipynb",
        "open in VS Code on another machine (this kernel runs on a remote Jupyter server): its cells cannot be "
        "read or changed from here; ask the user to paste what you need",
    )
    assert notebook_facts(Frontend(kind="headless"))[1].startswith("run by a headless client")
    assert notebook_facts(Frontend(kind="unknown", notebook=NB))[1].startswith("open in a frontend without")
    blocked = Frontend(kind="jupyterlab", notebook=NB, on_disk=True, live_blocked="ipykernel 9 lacks x")
    assert "cannot be reached during a run (ipykernel 9 lacks x)" in notebook_facts(blocked)[1]
    assert notebook_facts(Frontend(kind="none", notebook=NB)) == (str(NB), "")


def test_the_prompt_keeps_the_first_runs_line_and_a_later_frontend_is_told_once_in_the_request(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    notebook = tmp_path / "analysis.ipynb"
    notebook.write_text("{}")
    h = harness([Turn(blocks=[Text("one")]), Turn(blocks=[Text("two")]), Turn(blocks=[Text("three")])])
    services = h.session.ctx.services
    headless = KernelSignals(
        in_kernel=True, cwd=tmp_path, session_name=str(notebook), execute=ExecuteFacts(allow_stdin=False)
    )
    services.notebooks = NotebookProvider(default_path=notebook, signals=headless)
    services.signals = headless
    h.run("first")
    services.signals = KernelSignals(in_kernel=True, cwd=tmp_path, vscode_file=str(notebook))  # now VS Code
    h.run("second")
    h.run("third")
    first, second, third = h.server.requests
    assert system_text(first) == system_text(second) == system_text(third)
    assert f"- Notebook: {notebook.resolve()} — run by a headless client" in system_text(first)
    told = [
        b
        for b in second["messages"][-1]["content"]
        if "changed since this conversation began" in b.get("text", "")
    ]
    assert len(told) == 1 and told[0]["text"].startswith(
        f"[Where the notebook is open changed since this conversation began. Notebook: {notebook.resolve()} — "
        "open in VS Code: NotebookRead reads its saved file"
    )
    assert not any("changed since" in str(b) for b in third["messages"][-1]["content"])  # once per change
