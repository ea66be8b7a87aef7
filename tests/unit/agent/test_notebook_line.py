"""The session context names the notebook and what can be done with it where it is open; the system prompt stays
byte-identical across a conversation (preserved thinking, the prompt cache), so a frontend learned later is told
once, as an update appended to the request."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from agent_testkit import HarnessFactory, context_text

from jupyter_agent.agent.prompt import notebook_facts
from jupyter_agent.base.harness_texts import UPDATE_HEADING
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


def test_the_context_names_the_notebook_and_a_later_frontend_is_told_once_as_an_update(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    notebook = tmp_path / "analysis.ipynb"
    notebook.write_text("{}")
    h = harness([Turn(blocks=[Text("one")]), Turn(blocks=[Text("two")]), Turn(blocks=[Text("three")])])
    headless = KernelSignals(
        in_kernel=True, cwd=tmp_path, session_name=str(notebook), execute=ExecuteFacts(allow_stdin=False)
    )
    notebooks = NotebookProvider(default_path=notebook, signals=headless)
    h.session.ctx.services = dataclasses.replace(h.session.ctx.services, notebooks=notebooks)
    h.run("first", signals=headless)
    vscode = KernelSignals(in_kernel=True, cwd=tmp_path, vscode_file=str(notebook))  # now VS Code
    h.run("second", signals=vscode)
    h.run("third", signals=vscode)
    first, second, third = h.server.requests
    assert system_text(first) == system_text(second) == system_text(third)
    assert "- Notebook:" not in system_text(first)  # the notebook is a fact of the context, not of the prompt
    assert notebook.name not in system_text(first)
    assert f"- Notebook: {notebook.resolve()} — run by a headless client" in context_text(first)
    updates = [t for t in message_texts(second["messages"][-1]) if t.startswith(UPDATE_HEADING)]
    assert updates == [
        f"{UPDATE_HEADING}\n- Notebook: {notebook.resolve()} — open in VS Code: NotebookRead reads its saved file "
        "(edits not yet saved in the editor are not visible), NotebookEdit cannot change it: each change is shown "
        "to the user as a proposal to apply, and RunCell runs a cell's saved source and shows the outputs in this "
        "cell"
    ]
    assert not any(
        t.startswith(UPDATE_HEADING) for t in message_texts(third["messages"][-1])
    )  # once per change
    # the update stays where it was appended: the third request repeats the second's message unchanged
    assert _plain(third["messages"][2]) == _plain(second["messages"][2])


def message_texts(message: dict[str, object]) -> list[str]:
    content = message["content"]
    assert isinstance(content, list)
    return [b["text"] for b in content if b["type"] == "text"]


def _plain(message: dict[str, object]) -> object:
    content = message["content"]
    assert isinstance(content, list)
    return [{k: v for k, v in b.items() if k != "cache_control"} for b in content]
