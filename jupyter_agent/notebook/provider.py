"""The `notebooks` service: which backend a notebook path gets.

The notebook of this kernel is live when the labextension greeted the kernel's comm (a JupyterLab page
shows it); then every edit goes through the page and the file on disk is never written by the agent.
Any other notebook — and this one when no page answers (headless runs, VS Code, no extension) — is
edited as a file. Tools confine paths with the sandbox before they get here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..base.errors import ToolError
from .base import Notebook
from .bridge import PROTOCOL_VERSION, Hello, LiveBridge
from .file_backend import FileNotebook
from .live_backend import LiveNotebook


def _real(path: str | Path) -> Path:
    return Path(os.path.realpath(Path(path).expanduser()))


def kernel_notebook_path(user_ns: Mapping[str, Any] | None = None) -> Path | None:
    """This kernel's notebook from `JPY_SESSION_NAME`, which Jupyter Server sets for the kernels it starts
    (ipykernel also copies it into the namespace as `__session__`)."""
    name = os.environ.get("JPY_SESSION_NAME") or str((user_ns or {}).get("__session__") or "")
    return _real(name) if name.endswith(".ipynb") else None


class NotebookProvider:
    """`await provider.open(path)` → a `Notebook`; `path=None` is this kernel's notebook."""

    def __init__(
        self,
        *,
        default_path: Path | None,
        kernel: Any = None,
        bridge: LiveBridge | None = None,
    ) -> None:
        self.default_path = _real(default_path) if default_path is not None else None
        if bridge is None and kernel is not None:
            bridge = LiveBridge(notebook_path=str(self.default_path or ""))
        #: None outside a kernel (terminal IPython, plain Python): every notebook is a file then.
        self.bridge = bridge
        self._server_root: Path | None = None

    async def open(self, path: str | Path | None = None) -> Notebook:
        hello = await self.bridge.hello() if self.bridge is not None else None
        live_path = self._live_path(hello) if hello is not None else None
        if path is None:
            target = live_path or self.default_path
            if target is None:
                raise ToolError(
                    "NOTEBOOK_NOT_FOUND",
                    "this kernel does not know its notebook (it was not started by Jupyter Server, which sets "
                    "JPY_SESSION_NAME); pass notebook_path",
                )
        else:
            target = _real(path)
        if hello is not None and (path is None or target in (live_path, self.default_path)):
            assert self.bridge is not None
            if hello.protocol != PROTOCOL_VERSION:
                raise ToolError(
                    "NOT_AVAILABLE",
                    f"the jupyter-agent extension in the browser speaks notebook protocol {hello.protocol}, this "
                    f"kernel speaks {PROTOCOL_VERSION}; the user should upgrade jupyter-agent, reload the page and "
                    "restart the kernel",
                )
            return LiveNotebook(target, self.bridge)
        if hello is not None:
            await self._refuse_if_open_elsewhere(target)
        return FileNotebook(target)

    async def _refuse_if_open_elsewhere(self, target: Path) -> None:
        """A notebook open in the editor (with another kernel) is never written on disk behind its back."""
        assert self.bridge is not None
        for shown in await self.bridge.open_notebooks():
            relative = Path(shown.strip("/"))
            if self._server_root is not None and _real(self._server_root / relative) == target:
                raise ToolError(
                    "NOT_AVAILABLE",
                    f"'{target.name}' is open in JupyterLab with another kernel; the agent does not write the file "
                    "of an open notebook. Ask the user to run %%agent in that notebook, or to close it first",
                )

    def reset(self) -> None:
        """Forget a "no live page" decision (call at the start of a run): the page may have appeared since."""
        if self.bridge is not None:
            self.bridge.forget()

    def _live_path(self, hello: Hello) -> Path | None:
        """The live notebook on disk: its server-relative path anchored where the server root is."""
        relative = Path(hello.path.strip("/")) if hello.path.strip("/") else None
        if relative is None:
            return self.default_path
        if self._server_root is None and self.default_path is not None:
            parts = relative.parts
            if self.default_path.parts[-len(parts) :] == parts:
                self._server_root = Path(*self.default_path.parts[: -len(parts)])
        if self._server_root is not None:
            return _real(self._server_root / relative)
        for base in (Path.cwd(), *Path.cwd().parents):
            if (base / relative).is_file():
                return _real(base / relative)
        return None
