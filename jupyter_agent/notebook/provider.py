"""The `notebooks` service: which frontend holds this kernel's notebook, and what a path gets to read or write.

Reading: this kernel's notebook comes from the page when it is live (unsaved changes included), else from
its saved file, with a note on what the frontend may hold that the file does not. Writing goes through
`access.decide_write`, the one rule for every tool: live, proposal, refuse or file. Tools confine paths
with the sandbox before they get here.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.distribution import DISTRIBUTION
from ..base.errors import ToolError
from .access import WriteDecision, decide_write, not_on_this_disk, unknown_notebook
from .base import Notebook
from .bridge import PROTOCOL_VERSION, LiveBridge
from .file_backend import FileNotebook
from .frontend import Frontend, KernelSignals, detect, real_path
from .live_backend import LiveNotebook


def kernel_notebook_path(user_ns: Mapping[str, Any] | None = None) -> Path | None:
    """This kernel's notebook as the kernel was told: VS Code's `__vsc_ipynb_file__`, else `JPY_SESSION_NAME`,
    which Jupyter Server sets for the kernels it starts (ipykernel also copies it into `__session__`)."""
    signals = KernelSignals.read(user_ns=user_ns, in_kernel=False)
    if signals.vscode_file:
        return real_path(signals.vscode_file)
    return signals.session_path


@dataclass(frozen=True, kw_only=True)
class WriteAccess:
    """What a notebook-changing tool may do (`decision`) and the notebook to do it with: the page or the file
    to change, or for a proposal the saved file the proposal is computed against."""

    decision: WriteDecision
    book: Notebook


#: Where a live page's cells come from, as `read_note` says it. The session context already tells the model the
#: notebook is open live in JupyterLab, so a cell read's header leaves this one out (the others it keeps).
LIVE_PAGE_NOTE = "open in JupyterLab"


class NotebookProvider:
    """`await provider.open(path)` reads, `await provider.open_for_write(path)` decides; `path=None` is this
    kernel's notebook. `signals` (set at the start of each run) say what the kernel knows of its frontend."""

    def __init__(
        self,
        *,
        default_path: Path | None,
        kernel: Any = None,
        bridge: LiveBridge | None = None,
        signals: KernelSignals | None = None,
    ) -> None:
        self.default_path = real_path(default_path) if default_path is not None else None
        if bridge is None and kernel is not None:
            bridge = LiveBridge(notebook_path=str(self.default_path or ""))
        #: None outside a kernel (terminal IPython, plain Python): every notebook is a file then.
        self.bridge = bridge
        self.signals = signals or KernelSignals(
            in_kernel=bridge is not None,
            cwd=real_path(os.getcwd()),
            session_name=str(self.default_path or ""),
        )
        self._server_root: Path | None = None
        self._use_context(self.signals)
        self.frontend: Frontend = self._detect(None)

    # -- the frontend ----------------------------------------------------------------------------------
    async def refresh(self, signals: KernelSignals) -> Frontend:
        """At the start of a run: take the run's signals and what is known of the frontend now. Never waits
        for the page's greeting: a run's first request goes out at once, and a greeting that comes during the
        run is taken by the first tool that asks (`current`)."""
        self.use(signals)
        return await self.current(wait=False)

    def use(self, signals: KernelSignals) -> None:
        """Take the signals of the request being run (no asking, no waiting); the bridge publishes in that
        cell's context (see `LiveBridge.publish_in`)."""
        self.signals = signals
        self._use_context(signals)

    def _use_context(self, signals: KernelSignals) -> None:
        if self.bridge is not None and signals.context is not None:
            self.bridge.publish_in = signals.context.run

    async def current(self, *, wait: bool = True) -> Frontend:
        """The frontend now. Asks the page (waiting up to the bridge's hello timeout once per comm) unless the
        signals already say it is VS Code or headless, where no page with the extension can answer."""
        hello = None
        signals = self.signals
        headless = signals.execute.allow_stdin is False
        if self.bridge is not None and signals.in_kernel and not signals.vscode and not headless:
            hello = await self.bridge.hello(wait=wait and signals.pump_missing is None)
        self.frontend = self._detect(hello)
        return self.frontend

    def known(self) -> Frontend:
        """The frontend as known without asking or waiting (`%agent status` between runs)."""
        hello = self.bridge.current_hello() if self.bridge is not None else None
        return self._detect(hello)

    def _detect(self, hello: Any) -> Frontend:
        found = detect(self.signals, hello=hello, locate=self._locate)
        if hello is not None and hello.protocol != PROTOCOL_VERSION and found.live:
            found = dataclasses.replace(
                found,
                live_blocked=(
                    f"the jupyter-agent extension in the browser speaks notebook protocol {hello.protocol}, this "
                    f"kernel speaks {PROTOCOL_VERSION}; the user should upgrade {DISTRIBUTION}, reload the page and "
                    "restart the kernel"
                ),
            )
        return found

    def _locate(self, page_path: str) -> Path | None:
        """Where the page's server-relative path is on this disk: anchored where the server root is (from the
        session's notebook path), else under the working directory or one of its parents; None if nowhere."""
        relative = Path(page_path.strip("/")) if page_path.strip("/") else None
        session = self.signals.session_path
        if relative is None:
            return session
        if self._server_root is None and session is not None:
            parts = relative.parts
            if session.parts[-len(parts) :] == parts:
                self._server_root = Path(*session.parts[: -len(parts)])
        if self._server_root is not None:
            return real_path(self._server_root / relative)
        for base in (self.signals.cwd, *self.signals.cwd.parents):
            if (base / relative).is_file():
                return real_path(base / relative)
        return None

    async def running_cell(self) -> str | None:
        """The running `%%agent` cell by its nbformat id: JupyterLab sends it; for VS Code (whose cell ids are
        editor URIs) it is the one saved cell whose source is the code being run, if there is exactly one."""
        execute = self.signals.execute
        if not execute.from_vscode:
            return execute.cell_id
        frontend = self.frontend
        if frontend.notebook is None or not frontend.on_disk or not execute.code.strip():
            return None
        try:
            cells = await FileNotebook(frontend.notebook).cells()
        except ToolError:
            return None
        same = [cell.id for cell in cells if cell.source.strip() == execute.code.strip()]
        return same[0] if len(same) == 1 else None

    # -- reading ---------------------------------------------------------------------------------------
    async def open(self, path: str | Path | None = None) -> Notebook:
        """The notebook to read: this kernel's from the page when live, else its saved file; others as files."""
        frontend = await self.current()
        target = real_path(path) if path is not None else None
        if target is not None and not frontend.names(target):
            return FileNotebook(target)
        if frontend.notebook is None:
            raise unknown_notebook(frontend)
        if frontend.live:
            assert self.bridge is not None
            return LiveNotebook(frontend.notebook, self.bridge)
        if not frontend.on_disk and frontend.kind != "none":
            raise not_on_this_disk(frontend, frontend.notebook)
        return FileNotebook(frontend.notebook)

    def read_note(self, book: Notebook) -> str:
        """Where the cells of `book` came from, for the model: the page, or a file some frontend may be ahead of."""
        frontend = self.frontend
        if book.live:
            if frontend.kind == "gateway":
                return "live from the JupyterLab page; its file is on the Jupyter server, not on this kernel's disk"
            return LIVE_PAGE_NOTE
        if not frontend.names(book.path) or frontend.kind == "none":
            return "on disk"
        if frontend.kind == "vscode":
            return "the saved file of the notebook open in VS Code; changes not yet saved in the editor are not visible"
        if frontend.live_blocked is not None:
            return f"the saved file; the page may hold unsaved changes ({frontend.live_blocked})"
        if frontend.kind == "headless":
            return "the saved file; the headless client running it holds its own copy in memory"
        return "the saved file; the frontend that has it open may hold unsaved changes"

    # -- writing ---------------------------------------------------------------------------------------
    async def decide(self, path: str | Path | None = None) -> WriteDecision:
        """`access.decide_write` for this notebook now (asking the page which notebooks it shows, when live)."""
        frontend = await self.current()
        target = real_path(path) if path is not None else None
        elsewhere = False
        if target is not None and not frontend.names(target) and frontend.live:
            elsewhere = await self._open_in_page(target)
        return decide_write(frontend, target, open_elsewhere=elsewhere)

    async def open_for_write(self, path: str | Path | None = None) -> WriteAccess:
        """Decide and open what the decision needs; a refusal raises its `ToolError`."""
        decision = await self.decide(path)
        if decision.kind == "refuse":
            raise decision.refused()
        assert decision.path is not None
        if decision.kind == "live":
            assert self.bridge is not None
            return WriteAccess(decision=decision, book=LiveNotebook(decision.path, self.bridge))
        return WriteAccess(decision=decision, book=FileNotebook(decision.path))

    async def _open_in_page(self, target: Path) -> bool:
        """Whether the page shows `target` too (with another kernel): its file is then never written here."""
        assert self.bridge is not None
        root = self._server_root
        for shown in await self.bridge.open_notebooks():
            relative = Path(shown.strip("/"))
            if root is not None and real_path(root / relative) == target:
                return True
        return False
