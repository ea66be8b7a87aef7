"""Helpers for the notebook tests: notebooks on disk, and an in-process stand-in for the labextension.

The real frontend is TypeScript (labextension/src/ops.ts) and runs in a browser; unit tests cannot run it,
so `FakePage` answers the comm the way it does — hello, then one response per request — applying ops to
an in-memory cell list with the same rules (`jupyter_agent.notebook.apply`). It answers on its own thread,
as the kernel's main thread answers in a real kernel. The kernel tests use a real ipykernel instead.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from jupyter_agent.notebook.apply import apply_ops
from jupyter_agent.notebook.cells import new_cell_json
from jupyter_agent.notebook.ops import op_from_wire
from jupyter_agent.tools.context import ToolServices


def write_notebook(path: Path, *, cells: int = 3, with_ids: bool = True) -> Path:
    """A small valid notebook: code cells `x = i` with a stream output, then one markdown cell."""
    nb = new_notebook()
    for i in range(cells):
        cell = new_code_cell(f"x = {i}\nprint(x)", execution_count=i + 1)
        cell.outputs = [new_output("stream", name="stdout", text=f"{i}\n")]
        cell.id = f"c{i}"
        nb.cells.append(cell)
    md = new_markdown_cell("# Notes\nsome text")
    md.id = "md"
    nb.cells.append(md)
    if not with_ids:
        nb.nbformat_minor = 4
        for cell in nb.cells:
            del cell["id"]
    path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")
    return path


def assert_valid(path: Path) -> None:
    """The whole file passes nbformat's validation (the backend validates only what it changed)."""
    nbformat.validate(nbformat.read(path, as_version=4))


class FakePage:
    """A JupyterLab page with the extension, serving one notebook; see the module docstring."""

    def __init__(
        self,
        *,
        path: str = "work/analysis.ipynb",
        answer: bool = True,
        respond: bool = True,
        client_id: str = "page-1",
    ) -> None:
        self.path = path
        #: Whether the page greets the comm (False: no JupyterLab, no extension, headless).
        self.answer = answer
        #: Whether it answers requests (False: a page that hangs).
        self.respond = respond
        self.client_id = client_id
        #: Other notebooks open in the page (with their own kernels), reported in every response.
        self.also_open: list[str] = []
        self.cells: list[dict[str, Any]] = [new_cell_json("code", "a = 1", cell_id="a1")]
        self.requests: list[dict[str, Any]] = []
        self.opened: list[dict[str, Any]] = []
        self.closed_by_page = False
        self.closed_by_kernel = False
        self._inbox: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._on_msg: Callable[[dict[str, Any]], None] | None = None
        self._on_close: Callable[[dict[str, Any]], None] | None = None
        self.thread = threading.Thread(target=self._main, name="fake-main-thread", daemon=True)
        self.thread.start()

    # CommLike, called by the bridge on the worker
    def open(self, data: dict[str, Any] | None = None) -> None:
        self.opened.append(dict(data or {}))
        if self.answer:
            hello = {"type": "hello", "path": self.path, "protocol": 1, "client_id": self.client_id}
            self._inbox.put(lambda: self._deliver(hello))

    def send(self, data: dict[str, Any] | None = None) -> None:
        request = dict(data or {})
        self.requests.append(request)
        if self.respond:
            self._inbox.put(lambda: self._respond(request))

    def on_msg(self, callback: Callable[[dict[str, Any]], None] | None) -> None:
        self._on_msg = callback

    def on_close(self, callback: Callable[[dict[str, Any]], None] | None) -> None:
        self._on_close = callback

    def close(self, data: dict[str, Any] | None = None) -> None:
        """The kernel closed this comm (it opens a fresh one after a silent while)."""
        self.closed_by_kernel = True

    # the page's side
    def close_panel(self) -> None:
        self.closed_by_page = True
        self._inbox.put(lambda: self._on_close({}) if self._on_close else None)

    def rename(self, path: str) -> None:
        self.path = path
        self._inbox.put(lambda: self._deliver({"type": "path_changed", "path": path}))

    def stop(self) -> None:
        self._inbox.put(None)
        self.thread.join(5)

    def _main(self) -> None:
        while (job := self._inbox.get()) is not None:
            job()

    def _deliver(self, data: dict[str, Any]) -> None:
        if self._on_msg is not None:
            self._on_msg({"content": {"comm_id": "fake", "data": data}})

    def _respond(self, request: dict[str, Any]) -> None:
        ops = [op_from_wire(raw) for raw in request["ops"]]
        applied = apply_ops(self.cells, ops, name=self.path.rsplit("/", 1)[-1])
        results = [r.to_wire(path=self.path) for r in applied.results]
        self._deliver(
            {
                "type": "response",
                "request_id": request["request_id"],
                "results": results,
                "open_notebooks": [self.path, *self.also_open],
            }
        )


class World:
    """A session's context over one notebook: on the file backend, live through a `FakePage`, or held by VS Code
    (`"vscode"`: its traces in the signals; the agent may only propose).

    `type_into` is the user editing a cell (in the page, or in the file on disk); `sources` what the
    notebook holds now, wherever it lives.
    """

    def __init__(self, tmp_path: Path, backend: str) -> None:
        from jupyter_agent.notebook.bridge import LiveBridge
        from jupyter_agent.notebook.frontend import KernelSignals
        from jupyter_agent.notebook.provider import NotebookProvider
        from jupyter_agent.tools import Sandbox, ToolContext

        self.backend = backend
        self.path = write_notebook(tmp_path / "analysis.ipynb")
        self.disk = self.path.read_bytes()
        self.page: FakePage | None = None
        bridge = None
        if backend == "live":
            self.page = FakePage(path="analysis.ipynb")
            self.page.cells = [dict(c) for c in nbformat.read(self.path, as_version=4).cells]
            for cell in self.page.cells:
                cell["source"] = (
                    "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
                )
            page = self.page
            bridge = LiveBridge(open_comm=lambda: page, notebook_path=str(self.path))
        signals = None
        if backend == "vscode":
            signals = KernelSignals(in_kernel=True, cwd=tmp_path, vscode_file=str(self.path))
        self.notebooks = NotebookProvider(default_path=self.path, bridge=bridge, signals=signals)
        self.ctx = ToolContext(sandbox=Sandbox.at(tmp_path), services=ToolServices(notebooks=self.notebooks))

    def sources(self) -> dict[str, str]:
        if self.page is not None:
            return {c["id"]: c["source"] for c in self.page.cells}
        nb = nbformat.read(self.path, as_version=4)
        return {c.id: c.source for c in nb.cells}

    def type_into(self, cell_id: str, text: str) -> None:
        if self.page is not None:
            next(c for c in self.page.cells if c["id"] == cell_id)["source"] = text
            return
        nb = nbformat.read(self.path, as_version=4)
        next(c for c in nb.cells if c.id == cell_id).source = text
        nbformat.write(nb, self.path)

    def close(self) -> None:
        if self.page is not None:
            self.page.stop()
