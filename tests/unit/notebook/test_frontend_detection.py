"""Which frontend holds the kernel's notebook is known from what the frontend sent: the page's hello, VS Code's
traces, nbclient's `allow_stdin` false — and what each means for where the notebook is."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from jupyter_agent.notebook.bridge import Hello
from jupyter_agent.notebook.frontend import ExecuteFacts, Frontend, KernelSignals, detect


def signals(tmp_path: Path, **changes: Any) -> KernelSignals:
    return dataclasses.replace(KernelSignals(in_kernel=True, cwd=tmp_path / "kernel"), **changes)


def nowhere(_page_path: str) -> Path | None:
    return None


def test_outside_a_kernel_there_is_no_frontend(tmp_path: Path) -> None:
    found = detect(
        signals(tmp_path, in_kernel=False, session_name=str(tmp_path / "a.ipynb")), hello=None, locate=nowhere
    )
    assert found.kind == "none" and found.notebook == (tmp_path / "a.ipynb").resolve()


@pytest.mark.parametrize(
    ("changes", "evidence"),
    [
        ({"vscode_file": "/home/me/a.ipynb"}, "__vsc_ipynb_file__ is set in the namespace"),
        (
            {"execute": ExecuteFacts(cell_id="vscode-notebook-cell:/home/me/a.ipynb#W2sZmlsZQ%3D%3D")},
            "the cell's id is a vscode-notebook-cell: URI",
        ),
        (
            {"session_name": "/srv/a-jvsc-1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d.ipynb"},
            "the session name 'a-jvsc-1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d.ipynb' is one VS Code made up",
        ),
    ],
    ids=["vsc-file", "cell-uri", "jvsc-session"],
)
def test_vscode_is_known_by_any_of_its_traces(
    tmp_path: Path, changes: dict[str, object], evidence: str
) -> None:
    hello = Hello(path="a.ipynb", protocol=1)  # even a hello does not make VS Code a JupyterLab page
    found = detect(signals(tmp_path, **changes), hello=hello, locate=nowhere)
    assert found.kind == "vscode" and found.evidence == evidence
    assert found.shown_name is not None and found.shown_name.endswith("a.ipynb")


def test_a_vscode_cell_uri_names_its_notebook_percent_decoded(tmp_path: Path) -> None:
    notebook = tmp_path / "my notes.ipynb"
    notebook.write_text("{}")
    uri = f"vscode-notebook-cell:{tmp_path.as_posix()}/my%20notes.ipynb#W1sZmlsZQ%3D%3D"
    found = detect(signals(tmp_path, execute=ExecuteFacts(cell_id=uri)), hello=None, locate=nowhere)
    assert found.notebook == notebook.resolve() and found.on_disk
    assert found.names(notebook.resolve())


def test_vscode_on_a_remote_server_knows_only_the_notebooks_name(tmp_path: Path) -> None:
    session = "/srv/analysis-jvsc-1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d.ipynb"
    found = detect(signals(tmp_path, session_name=session), hello=None, locate=nowhere)
    assert found.notebook is None and found.name == "analysis.ipynb" and not found.on_disk


def test_a_page_whose_notebook_is_on_this_disk_is_jupyterlab(tmp_path: Path) -> None:
    notebook = tmp_path / "work" / "a.ipynb"
    notebook.parent.mkdir()
    notebook.write_text("{}")
    found = detect(
        signals(tmp_path), hello=Hello(path="work/a.ipynb", protocol=1), locate=lambda _p: notebook
    )
    assert found.kind == "jupyterlab" and found.live and found.on_disk and found.notebook == notebook


def test_a_page_whose_notebook_is_not_on_this_disk_is_a_gateway_named_under_the_kernels_directory(
    tmp_path: Path,
) -> None:
    forwarded = str(tmp_path / "lab-host" / "work" / "a.ipynb")  # JPY_SESSION_NAME from the server, not here
    found = detect(
        signals(tmp_path, session_name=forwarded),
        hello=Hello(path="work/a.ipynb", protocol=1),
        locate=lambda _p: Path(forwarded),
    )
    assert found.kind == "gateway" and found.live and not found.on_disk
    assert found.notebook == tmp_path / "kernel" / "work" / "a.ipynb"
    assert found.page_path == "work/a.ipynb" and found.shown_name == "work/a.ipynb"
    assert found.names(Path(forwarded).resolve())  # the forwarded name still means this notebook


def test_a_page_heard_while_the_pump_is_missing_is_not_live(tmp_path: Path) -> None:
    notebook = tmp_path / "a.ipynb"
    notebook.write_text("{}")
    found = detect(
        signals(tmp_path, pump_missing="ipykernel 9 lacks x"),
        hello=Hello(path="a.ipynb", protocol=1),
        locate=lambda _p: notebook,
    )
    assert found.kind == "jupyterlab" and not found.live and found.live_blocked == "ipykernel 9 lacks x"


@pytest.mark.parametrize(("allow_stdin", "kind"), [(False, "headless"), (True, "unknown"), (None, "unknown")])
def test_without_a_hello_nbclients_allow_stdin_false_means_headless(
    tmp_path: Path, allow_stdin: bool | None, kind: str
) -> None:
    found = detect(
        signals(tmp_path, execute=ExecuteFacts(allow_stdin=allow_stdin)), hello=None, locate=nowhere
    )
    assert found.kind == kind and not found.live


def test_execute_facts_come_from_the_request_and_ignore_what_is_not_theirs() -> None:
    parent = {
        "metadata": {"cellId": "ask"},
        "content": {"allow_stdin": False, "code": "%%agent\nhi"},
    }
    assert ExecuteFacts.of(parent) == ExecuteFacts(cell_id="ask", allow_stdin=False, code="%%agent\nhi")
    odd = {"metadata": {"cellId": 3}, "content": {"allow_stdin": "yes", "code": None}}
    assert ExecuteFacts.of(odd) == ExecuteFacts()
    assert ExecuteFacts.of(None) == ExecuteFacts()


def test_every_kind_has_a_label_for_status() -> None:
    kinds = ("jupyterlab", "gateway", "vscode", "headless", "unknown", "none")
    assert all(Frontend(kind=kind).label for kind in kinds)
