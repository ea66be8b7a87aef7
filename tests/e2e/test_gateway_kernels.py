"""Kernels on a real jupyter-kernel-gateway (JupyterLab `--gateway-url`), in another directory than the Lab's:
how JupyterHub, Kubernetes and Enterprise Gateway deployments run them.

The notebook is not on the kernel's disk, so every notebook tool goes through the page (the extension's comm
works through the gateway); the working directory is the kernel's own; nothing is created outside it — also
when the Lab forwards `JPY_SESSION_NAME`, a path that does not exist on the kernel's host (simulated with
bubblewrap hiding the Lab's directory from the kernel). Approvals are clicked, and Run All keeps its order.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gateway import Gateway, start_gateway, stop_gateway
from lab import (
    Lab,
    ScriptBox,
    after_pending_tasks,
    agent_output,
    cell_output,
    live_sources,
    notebook_with_ids,
    panel_js,
    start_lab,
    stop_lab,
    wait_for,
)

from jupyter_agent.base.harness_texts import told_texts
from jupyter_agent.permissions.bubblewrap import check_sandbox
from jupyter_agent.testing import TEST_API_KEY, ScriptedServer, Text, ToolUse, Turn

CELLS = 6
NOTEBOOK = "team/gw.ipynb"


def files_under(root: Path) -> set[str]:
    """Every path under `root`, but the checkpoints Jupyter Server itself keeps when a notebook is opened."""
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if ".ipynb_checkpoints" not in p.parts}


def dependent_cells() -> list[tuple[str, str]]:
    """Cells after the agent's, each checking the one before ran and appending its number (in the kernel's dir)."""
    cells = [("c1", "step = 1\nwith open('order.txt', 'a') as f:\n    f.write('1\\n')")]
    for n in range(2, CELLS + 1):
        cells.append(
            (
                f"c{n}",
                f"assert step == {n - 1}, step\nstep = {n}\nwith open('order.txt', 'a') as f:\n    f.write('{n}\\n')",
            )
        )
    return cells


def run_all(page: Any) -> None:
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")


def wait_all_ran(page: Any, path: str, count: int, timeout: float = 120_000) -> None:
    page.wait_for_function(
        panel_js(
            path,
            f"const cells = panel.content.model.sharedModel.cells; if (cells.length !== {count}) return false;"
            " return cells.every(c => c.cell_type !== 'code' || (c.execution_count != null"
            " && c.executionState !== 'running'));",
        ),
        timeout=timeout,
    )


def outputs_text(page: Any, path: str, index: int) -> str:
    return page.evaluate(
        panel_js(
            path,
            f"const o = panel.content.model.cells.get({index}).outputs; const r = [];"
            " for (let i = 0; i < o.length; i++) { const j = o.get(i).toJSON(); r.push(j.text || ''); }"
            " return r.join('');",
        )
    )


@pytest.fixture
def gateway_page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    yield context.new_page()
    context.close()


def lab_on_gateway(
    tmp_path_factory: pytest.TempPathFactory, server: ScriptedServer, *, forward: bool, hide: bool
) -> Iterator[tuple[Lab, Gateway]]:
    lab_tmp = tmp_path_factory.mktemp("gateway-lab")
    gateway = start_gateway(
        tmp_path_factory.mktemp("gateway-kernels"),
        server.url,
        TEST_API_KEY,
        forward=forward,
        hide=lab_tmp if hide else None,
    )
    env = {"JUPYTER_GATEWAY_ALLOWED_ENVS": "JPY_SESSION_NAME"} if forward else {}
    lab = start_lab(lab_tmp, server.url, TEST_API_KEY, gateway_url=gateway.url, env=env)
    (lab.root / "team").mkdir()
    try:
        yield lab, gateway
    finally:
        stop_lab(lab)
        stop_gateway(gateway)


@pytest.fixture(scope="module")
def gateway_lab(
    tmp_path_factory: pytest.TempPathFactory, model_server: tuple[ScriptedServer, ScriptBox]
) -> Iterator[tuple[Lab, Gateway]]:
    yield from lab_on_gateway(tmp_path_factory, model_server[0], forward=False, hide=False)


@pytest.fixture(scope="module")
def remote_gateway_lab(
    tmp_path_factory: pytest.TempPathFactory, model_server: tuple[ScriptedServer, ScriptBox]
) -> Iterator[tuple[Lab, Gateway]]:
    check = check_sandbox()
    if check.bubblewrap is None:  # the same condition the Bash sandbox's own tests skip on
        pytest.skip(f"a kernel on 'another host' needs bubblewrap: {check.describe()}")
    yield from lab_on_gateway(tmp_path_factory, model_server[0], forward=True, hide=True)


KERNEL = (
    "const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
    " const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;"
)


def open_on_gateway(page: Any, lab: Lab, gateway: Gateway) -> None:
    """Open the notebook and wait for its kernel on the gateway to be idle.

    JupyterLab sometimes opens two websockets to a new gateway kernel at once; the gateway replaces the first
    ("Replacing stale connection") and the page may never hear the kernel's status, staying "unknown". A
    user then reconnects to the kernel; so does this, twice at most. On failure it says what both servers
    logged.
    """
    page.goto(f"{lab.url}/lab/tree/{NOTEBOOK}?token={lab.token}&reset")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    for _attempt in range(3):
        try:
            page.wait_for_function(f"() => {{ {KERNEL} return !!k && k.status === 'idle'; }}", timeout=20_000)
            return
        except Exception:
            page.evaluate(f"() => {{ {KERNEL} if (k) {{ k.reconnect(); }} }}")  # not awaited: it may hang
    status = page.evaluate(
        f"() => {{ {KERNEL} return k ? k.status + '/' + k.connectionStatus : 'no kernel'; }}"
    )
    raise AssertionError(
        f"the gateway kernel did not become idle ({status})\n--- gateway log\n"
        f"{gateway.log.read_text()[-2000:]}\n--- lab log\n{lab.log.read_text()[-2000:]}"
    )


def click_allow(page: Any, times: int) -> None:
    output = agent_output(page)
    for n in range(times):
        allow = output.locator("button.jupyter-button:has-text('Allow once')")
        allow.first.wait_for(timeout=60_000)
        allow.first.click()
        after_pending_tasks(page)
        wait_for(
            lambda n=n: output.locator("text=allowed once").count() > n, 30, f"approval {n + 1} to be taken"
        )


def test_through_a_gateway_the_notebook_tools_work_through_the_page_and_files_stay_in_the_kernels_directory(
    gateway_page: Any, gateway_lab: tuple[Lab, Gateway], model_server: tuple[ScriptedServer, ScriptBox]
) -> None:
    lab, gateway = gateway_lab
    page = gateway_page
    server, box = model_server
    on_disk = notebook_with_ids(
        lab,
        NOTEBOOK,
        [
            ("load", "%load_ext jupyter_agent"),
            (
                "target",
                "value = 1\nprint('value is', value)",
            ),  # runs before the agent: Run All queued it as it was
            ("ask", "%%agent\nfix the value"),
            *dependent_cells(),
        ],
    )
    lab_files = files_under(lab.root)
    box.set(
        [
            Turn(blocks=[ToolUse(name="NotebookRead", input={})]),
            Turn(blocks=[ToolUse(name="NotebookEdit", input={"cell_id": "target", "new_source": "value = 2\nprint('value is', value)"})]),
            Turn(blocks=[ToolUse(name="RunCell", input={"cell_id": "target"})]),
            Turn(blocks=[ToolUse(name="Write", input={"file_path": "notes.md", "content": "value fixed\n"})]),
            Turn(blocks=[Text("Fixed through the gateway.")]),
        ],
        server,
    )  # fmt: skip
    open_on_gateway(page, lab, gateway)
    run_all(page)
    click_allow(page, 3)  # NotebookEdit, RunCell, Write: each asks in the default mode
    agent_output(page).locator("text=Fixed through the gateway.").wait_for(timeout=60_000)
    wait_all_ran(page, NOTEBOOK, 3 + CELLS)

    read = server.requests[box.offset + 1]["messages"][-1]["content"][0]["content"][0]["text"]
    assert read.startswith(
        "Notebook 'team/gw.ipynb' (live from the JupyterLab page; its file is on the Jupyter server, not on this "
        "kernel's disk, 9 cells"
    )
    # The edit and the run went through the page; the file is left to the user's save.
    assert live_sources(page, NOTEBOOK)[1] == "value = 2\nprint('value is', value)"
    assert outputs_text(page, NOTEBOOK, 1) == "value is 2\n"
    assert (lab.root / NOTEBOOK).read_bytes() == on_disk
    # Files land in the kernel's own directory; nothing appears next to the Lab's notebook.
    assert (gateway.home / "notes.md").read_text() == "value fixed\n"
    assert (gateway.home / "order.txt").read_text().split() == [str(n) for n in range(1, CELLS + 1)]
    assert files_under(lab.root) == lab_files
    # The session's facts are told in the conversation (the latest wins), not in the system prompt: the page's
    # greeting may come in after the run started, and the next request's update names the notebook.
    told = told_texts(server.requests[-1]["messages"])
    assert f"- Working directory: {gateway.home.resolve()} (relative paths start here)" in told[0]
    notebook_lines = [line for text in told for line in text.splitlines() if line.startswith("- Notebook:")]
    assert notebook_lines[-1].startswith(
        "- Notebook: team/gw.ipynb — live in a JupyterLab page; this kernel runs on another machine"
    ), told


def test_a_forwarded_notebook_path_that_does_not_exist_on_the_kernels_host_creates_nothing(
    gateway_page: Any, remote_gateway_lab: tuple[Lab, Gateway], model_server: tuple[ScriptedServer, ScriptBox]
) -> None:
    lab, gateway = remote_gateway_lab
    page = gateway_page
    server, box = model_server
    check = (
        f"import json, os\nprint(json.dumps({{'lab_root_here': os.path.exists({str(lab.root)!r}),"
        " 'cwd': os.getcwd(), 'session': os.environ.get('JPY_SESSION_NAME')}))"
    )
    on_disk = notebook_with_ids(
        lab,
        NOTEBOOK,
        [
            ("load", "%load_ext jupyter_agent"),
            ("ask", "%%agent --mode acceptEdits\nfix the value"),
            ("target", "value = 1"),
            ("check", check),
        ],
    )
    lab_files = files_under(lab.root)
    box.set(
        [
            Turn(blocks=[ToolUse(name="NotebookRead", input={"cell_id": "target"})]),
            Turn(
                blocks=[ToolUse(name="NotebookEdit", input={"cell_id": "target", "new_source": "value = 2"})]
            ),
            Turn(blocks=[ToolUse(name="Write", input={"file_path": "notes.md", "content": "n\n"})]),
            Turn(blocks=[Text("Done on the remote kernel.")]),
        ],
        server,
    )
    open_on_gateway(page, lab, gateway)
    run_all(page)
    agent_output(page).locator("text=Done on the remote kernel.").wait_for(timeout=90_000)
    wait_all_ran(page, NOTEBOOK, 4)

    seen = json.loads(cell_output(page, 3).inner_text().strip())
    # The kernel got the Lab's path, which does not exist where it runs — and it was not created there.
    assert seen == {
        "lab_root_here": False,
        "cwd": str(gateway.home),
        "session": str(lab.root / NOTEBOOK),
    }
    assert live_sources(page, NOTEBOOK)[2] == "value = 2"
    assert (lab.root / NOTEBOOK).read_bytes() == on_disk
    assert (gateway.home / "notes.md").read_text() == "n\n"
    assert files_under(lab.root) == lab_files
