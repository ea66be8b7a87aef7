"""JupyterLab and Debian's Chromium for end-to-end tests: a real server, a real browser, our real extension."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from jupyter_agent.testing import Script, ScriptedServer, Text, ToolUse, Turn

ROOT = Path(__file__).resolve().parents[2]
#: Screenshots of every e2e test end up here (CI keeps them as artifacts).
ARTIFACTS = ROOT / "test-artifacts"
#: An IPython startup file of the test server's own IPYTHONDIR: on SIGUSR1 a kernel writes every thread's stack
#: to <JUPYTER_AGENT_TEST_STACKS>/<pid>.txt (`Lab.kernel_stacks`). It leaves no name in the user's namespace.
STACKS_STARTUP = """\
import faulthandler, os, signal
faulthandler.register(
    signal.SIGUSR1,
    file=open(os.path.join(os.environ["JUPYTER_AGENT_TEST_STACKS"], f"{os.getpid()}.txt"), "w"),
    all_threads=True,
)
del faulthandler, os, signal
"""
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class ScriptBox:
    """One model server for the whole session; each test swaps in its own script."""

    script: Script = field(default_factory=list[Turn])
    offset: int = 0

    def set(self, script: Script, server: ScriptedServer) -> None:
        self.script = script
        self.offset = len(server.requests)

    def __call__(self, body: dict[str, Any], index: int) -> Turn:
        script = self.script
        local = index - self.offset
        if callable(script):
            return script(body, local)
        return script[local]


@dataclass
class Lab:
    url: str
    token: str
    root: Path
    process: subprocess.Popen[bytes]
    log: Path

    def api(self, method: str, path: str) -> Any:
        request = urllib.request.Request(
            f"{self.url}{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None

    def kernel_stacks(self) -> str:
        """Every thread's stack in each kernel this server runs now: what a kernel that never answered was doing.
        Only the server's own children are signalled (a pid of a kernel gone since may belong to another
        process now)."""
        dumps: dict[int, Path] = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                pid, ppid = int(stat.parent.name), int(stat.read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            dump = stacks_dir(self.log.parent) / f"{pid}.txt"
            if ppid == self.process.pid and dump.exists():
                os.kill(pid, signal.SIGUSR1)
                dumps[pid] = dump
        if not dumps:
            return "(no kernel of this server is running)"
        time.sleep(1)  # each kernel writes its stacks from its signal handler
        return "\n".join(f"--- kernel process {pid}\n{dump.read_text()}" for pid, dump in dumps.items())

    def shutdown_kernels(self) -> None:
        for session in self.api("GET", "/api/sessions"):
            self.api("DELETE", f"/api/sessions/{session['id']}")


def stacks_dir(tmp: Path) -> Path:
    """Where the kernels of the server started in `tmp` write their stacks (see `STACKS_STARTUP`)."""
    return tmp / "kernel-stacks"


def settings_dir(tmp: Path) -> Path:
    """User settings for the test server: no news toast over the notebook."""
    folder = tmp / "lab-settings" / "@jupyterlab" / "apputils-extension"
    folder.mkdir(parents=True)
    (folder / "notification.jupyterlab-settings").write_text(
        '{"fetchNews": "false", "checkForUpdates": false}'
    )
    return tmp / "lab-settings"


def start_lab(
    tmp: Path,
    server_url: str,
    api_key: str,
    *,
    collaborative: bool = False,
    gateway_url: str | None = None,
    env: dict[str, str] | None = None,
) -> Lab:
    """A JupyterLab server on a free port. With jupyter-collaboration installed every test but the
    collaboration ones runs with real-time collaboration off (`YDocExtension.disable_rtc`), so they see
    JupyterLab as most users run it; the setting is ignored where the package is absent. With `gateway_url`
    its kernels run on that kernel gateway (`--gateway-url`), not next to the server."""
    root = tmp / "work"
    root.mkdir()
    stacks_dir(tmp).mkdir(exist_ok=True)
    startup = tmp / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    (startup / "00-kernel-stacks.py").write_text(STACKS_STARTUP)
    port = free_port()
    token = "e2e-token"
    server_env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(tmp / "config"),
        "JUPYTER_DATA_DIR": str(tmp / "data"),
        "JUPYTER_RUNTIME_DIR": str(tmp / "runtime"),
        "IPYTHONDIR": str(tmp / "ipython"),
        "JUPYTER_AGENT_TEST_STACKS": str(stacks_dir(tmp)),
        "JUPYTERLAB_SETTINGS_DIR": str(settings_dir(tmp)),
        "PYTHONPATH": str(ROOT),
        "ANTHROPIC_BASE_URL": server_url,
        "ANTHROPIC_API_KEY": api_key,
        **(env or {}),
    }
    log = tmp / "lab.log"
    jupyter = str(Path(os.environ.get("VIRTUAL_ENV", ROOT / ".venv")) / "bin" / "jupyter")
    if not Path(jupyter).exists():
        jupyter = "jupyter"
    process = subprocess.Popen(
        [
            jupyter, "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}", f"--ServerApp.token={token}",
            "--allow-root", "--LabApp.expose_app_in_browser=True", f"--ServerApp.root_dir={root}",
            "--JupyterNotebookApp.expose_app_in_browser=True",  # Notebook 7 (/notebooks/…) on the same server
            f"--YDocExtension.disable_rtc={not collaborative}",
            *([f"--gateway-url={gateway_url}"] if gateway_url else []),
        ],
        cwd=root, env=server_env, stdout=log.open("wb"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    lab = Lab(url=f"http://127.0.0.1:{port}", token=token, root=root, process=process, log=log)
    deadline = time.monotonic() + 60
    while True:
        try:
            lab.api("GET", "/api/status")
            return lab
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError(f"JupyterLab did not start:\n{log.read_text()[-3000:]}") from None
            time.sleep(0.3)


def stop_lab(lab: Lab) -> None:
    lab.process.terminate()
    try:
        lab.process.wait(10)
    except Exception:
        lab.process.kill()


def insert_below_script(new_source: str) -> Script:
    """The model reads the notebook, then inserts a code cell with no cell_id (so: below the running cell)."""
    return [
        Turn(blocks=[ToolUse(name="NotebookRead", input={})]),
        Turn(blocks=[ToolUse(name="NotebookEdit", input={"edit_mode": "insert", "cell_type": "code", "new_source": new_source})]),
        Turn(blocks=[Text("Inserted a cell below.")]),
    ]  # fmt: skip


def write_notebook(lab: Lab, name: str, cells: list[str | tuple[str, str]]) -> Path:
    notebook = new_notebook()
    for cell in cells:
        if isinstance(cell, tuple):
            notebook.cells.append(new_markdown_cell(cell[1]))
        else:
            notebook.cells.append(new_code_cell(cell))
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = lab.root / name
    nbformat.write(notebook, path)
    return path


def notebook_with_ids(lab: Lab, name: str, cells: list[tuple[str, str]]) -> bytes:
    """Code cells with the given ids (so the agent can name them); returns the bytes written."""
    notebook = new_notebook()
    for cell_id, source in cells:
        cell = new_code_cell(source)
        cell.id = cell_id
        notebook.cells.append(cell)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, lab.root / name)
    return (lab.root / name).read_bytes()


def wait_for(
    condition: Callable[[], bool], timeout: float, what: str, state: Callable[[], object] | None = None
) -> None:
    """Poll `condition`; on timeout the error names `what` and, when given, the `state` that was seen."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            seen = f"; seen: {state()!r}" if state is not None else ""
            raise TimeoutError(f"timed out waiting for {what}{seen}")
        time.sleep(0.1)


def _open_until_kernel_idle(page: Any, url: str) -> None:
    """Open `url` and wait until the notebook shows its cells and its kernel is idle."""
    page.goto(url)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    page.wait_for_function(
        "() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
        " const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;"
        " return k && k.status === 'idle'; }",
        timeout=60_000,
    )


def open_notebook(page: Any, lab: Lab, name: str) -> None:
    _open_until_kernel_idle(page, f"{lab.url}/lab/tree/{name}?token={lab.token}&reset")


def open_notebook_7(page: Any, lab: Lab, name: str) -> None:
    """The same notebook in Notebook 7's single-document UI, served by the same server."""
    _open_until_kernel_idle(page, f"{lab.url}/notebooks/{name}?token={lab.token}")


def run_cell(page: Any, index: int) -> None:
    """Select a cell and Shift+Enter, the way a person runs it."""
    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
    cell.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")


def cell_output(page: Any, index: int) -> Any:
    return page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".jp-OutputArea")


def agent_output(page: Any) -> Any:
    """The output of the `%%agent` cell, wherever the agent's own edits moved it."""
    return page.locator(".jp-Notebook .jp-Cell:has(.jp-InputArea-editor:has-text('%%agent'))").last.locator(
        ".jp-OutputArea"
    )


def wait_cell_done(page: Any, index: int, timeout: float = 60_000) -> None:
    prompt = page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".jp-InputArea-prompt")
    page.wait_for_function(
        "(el) => /\\[\\d+\\]/.test(el.textContent)", arg=prompt.element_handle(), timeout=timeout
    )


def ask_in_notebook(page: Any, lab: Lab, name: str, request: str) -> Any:
    """A new notebook `name` of two cells, `%load_ext jupyter_agent` and `%%agent` with `request`, opened and
    run as a person runs them; the agent cell's output (the run goes on)."""
    write_notebook(lab, name, ["%load_ext jupyter_agent", f"%%agent\n{request}"])
    open_notebook(page, lab, name)
    run_cell(page, 0)
    wait_cell_done(page, 0)
    run_cell(page, 1)
    return cell_output(page, 1)


def after_pending_tasks(page: Any) -> None:
    """Return once the page has run what a click queued (navigation, handlers): two frames and a task later."""
    page.evaluate(
        "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0))))"
    )


def wait_cell_done_of(page: Any, path: str, index: int, timeout: float = 60_000) -> None:
    """A cell of the notebook at `path` has run (it has an execution count) and its kernel is idle."""
    page.wait_for_function(
        panel_js(
            path,
            f"const cell = panel.content.model.sharedModel.cells[{index}];"
            " const k = panel.sessionContext.session && panel.sessionContext.session.kernel;"
            " return cell.execution_count != null && !!k && k.status === 'idle';",
        ),
        timeout=timeout,
    )


def panel_js(path: str, body: str, *, missing: str = "throw new Error('no panel for ' + {path!r});") -> str:
    """JS run against the notebook panel open at `path` (server-relative), as `panel`."""
    return (
        "() => { const app = window.jupyterapp;"
        f" const panel = Array.from(app.shell.widgets('main')).find(w => w.context && w.context.path === {path!r});"
        f" if (!panel) {{ {missing.format(path=path)} }} {body} }}"
    )


def live_sources(page: Any, path: str) -> list[str]:
    return page.evaluate(
        panel_js(path, "return panel.content.model.sharedModel.cells.map(c => c.getSource());")
    )


def run_cell_of(page: Any, path: str, index: int) -> None:
    """Run one cell of a given notebook (activating its tab), without waiting for it to finish.

    The command names the panel (`widgetId`), so which notebook runs never depends on where the focus is: without
    it, `notebook:run-cell` runs in the notebook tracker's current widget, the one that last had focus.
    """
    page.evaluate(panel_js(path, "app.shell.activateById(panel.id); return true;"))
    page.wait_for_function(panel_js(path, "return app.shell.currentWidget === panel;"), timeout=10_000)
    page.evaluate(
        panel_js(
            path,
            f"panel.content.activeCellIndex = {index};"
            " app.commands.execute('notebook:run-cell', {widgetId: panel.id}); return true;",
        )
    )


def cell_text(page: Any, path: str, index: int) -> str:
    """The text a person sees in one cell of the notebook at `path` (its input and its output)."""
    return page.evaluate(panel_js(path, f"return panel.content.widgets[{index}].node.innerText;"))


def execution_counts(page: Any, path: str) -> list[int | None]:
    """Each cell's execution count in the live notebook at `path`: which cells ran, and in what order."""
    return page.evaluate(
        panel_js(path, "return panel.content.model.sharedModel.cells.map(c => c.execution_count ?? null);")
    )


def open_another(page: Any, lab: Lab, name: str) -> None:
    page.evaluate(f"() => {{ window.jupyterapp.commands.execute('docmanager:open', {{path: {name!r}}}); }}")
    page.wait_for_function(
        panel_js(
            name,
            "const k = panel.sessionContext.session && panel.sessionContext.session.kernel;"
            " return !!k && k.status === 'idle';",
            missing="return false;",
        ),
        timeout=60_000,
    )
