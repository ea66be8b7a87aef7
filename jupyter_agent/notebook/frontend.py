"""Which frontend holds this kernel's notebook — known from what the frontend sent, never guessed.

The signals, strongest first:

- the jupyter-agent labextension's `hello` on the notebook comm: JupyterLab or Notebook 7 shows the notebook
  and can be edited live. When the page's server-relative path is not a file on this kernel's disk, the
  kernel runs somewhere else (a gateway: JupyterHub, Kubernetes, Enterprise Gateway) — still live;
- VS Code: `__vsc_ipynb_file__` in the user namespace (set by its hidden start-up cell), a
  `vscode-notebook-cell:` cellId in the execute request, or a made-up `<name>-jvsc-<uuid>.ipynb` session
  name (VS Code on an existing Jupyter server);
- a client that runs the cell with `allow_stdin` false: nbclient and what is built on it (papermill,
  nbconvert --execute, voila) — headless;
- a kernel with none of these: a frontend that takes input but did not greet (JupyterLab without the
  extension, a page that was closed, another editor) — "unknown";
- no kernel at all (terminal IPython, plain Python) — "none".

`access.py` turns the frontend into what a notebook tool may do with the notebook.
"""

from __future__ import annotations

import contextvars
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

from ..base.json_values import is_object
from .bridge import Hello

FrontendKind = Literal["jupyterlab", "gateway", "vscode", "headless", "unknown", "none"]

VSCODE_CELL_SCHEME = "vscode-notebook-cell"
#: VS Code on an existing Jupyter server names the kernel's session `<name>-jvsc-<uuid>.ipynb`.
_JVSC = re.compile(r"-jvsc-[0-9a-fA-F-]{8,}(?=\.ipynb$)")


def real_path(path: str | Path) -> Path:
    return Path(os.path.realpath(Path(path).expanduser()))


@dataclass(frozen=True, kw_only=True)
class ExecuteFacts:
    """What the running cell's execute request says about its sender (read on the kernel's main thread)."""

    #: `metadata.cellId`: the nbformat id from JupyterLab / Notebook 7, a `vscode-notebook-cell:` URI from VS Code.
    cell_id: str | None = None
    #: `content.allow_stdin`; nbclient (papermill, nbconvert, voila) sends False.
    allow_stdin: bool | None = None
    #: The cell's source, to find the running cell in a saved notebook when its id means nothing there.
    code: str = ""

    @classmethod
    def of(cls, parent: Mapping[str, Any] | None) -> ExecuteFacts:
        """From the kernel's shell parent message (`kernel.get_parent("shell")`); empty facts for anything else."""
        if not parent:
            return cls()
        metadata, content = parent.get("metadata"), parent.get("content")
        metadata = metadata if is_object(metadata) else {}
        content = content if is_object(content) else {}
        cell_id, allow, code = metadata.get("cellId"), content.get("allow_stdin"), content.get("code")
        return cls(
            cell_id=cell_id if isinstance(cell_id, str) and cell_id else None,
            allow_stdin=allow if isinstance(allow, bool) else None,
            code=code if isinstance(code, str) else "",
        )

    @property
    def from_vscode(self) -> bool:
        return (self.cell_id or "").startswith(f"{VSCODE_CELL_SCHEME}:")

    @property
    def vscode_notebook(self) -> Path | None:
        """The notebook a `vscode-notebook-cell:/home/me/a.ipynb#W1sZmlsZQ==` cell belongs to."""
        if not self.from_vscode:
            return None
        path = unquote(urlsplit(self.cell_id or "").path)
        return Path(path) if path.endswith(".ipynb") else None


@dataclass(frozen=True, kw_only=True)
class KernelSignals:
    """Everything the kernel knows about its frontend before asking the page; gathered once per run."""

    #: False outside a Jupyter kernel (terminal IPython, plain Python).
    in_kernel: bool
    #: The kernel's own working directory.
    cwd: Path
    #: `JPY_SESSION_NAME` (Jupyter Server sets it) or IPython's `__session__`.
    session_name: str = ""
    #: `__vsc_ipynb_file__`, set by VS Code's hidden start-up cell.
    vscode_file: str = ""
    execute: ExecuteFacts = field(default_factory=ExecuteFacts)
    #: Why replies from the page cannot arrive while a cell runs (the shell pump is unavailable), or None.
    pump_missing: str | None = None
    #: The running cell's context on the kernel's main thread: what the agent's thread publishes comm messages
    #: in (None outside a kernel).
    context: contextvars.Context | None = field(default=None, compare=False)

    @classmethod
    def read(
        cls,
        *,
        user_ns: Mapping[str, Any] | None,
        in_kernel: bool,
        execute: ExecuteFacts | None = None,
        pump_missing: str | None = None,
    ) -> KernelSignals:
        namespace = user_ns or {}
        return cls(
            in_kernel=in_kernel,
            cwd=real_path(os.getcwd()),
            session_name=os.environ.get("JPY_SESSION_NAME") or str(namespace.get("__session__") or ""),
            vscode_file=str(namespace.get("__vsc_ipynb_file__") or ""),
            execute=execute or ExecuteFacts(),
            pump_missing=pump_missing,
            context=contextvars.copy_context() if in_kernel else None,
        )

    @property
    def jvsc_name(self) -> str | None:
        """`analysis.ipynb` for a VS Code session name `analysis-jvsc-1a2b…ipynb`, else None."""
        name = Path(self.session_name).name
        return _JVSC.sub("", name) if _JVSC.search(name) else None

    @property
    def session_path(self) -> Path | None:
        """The notebook named by the session (not a made-up VS Code name)."""
        if not self.session_name.endswith(".ipynb") or self.jvsc_name is not None:
            return None
        return real_path(self.session_name)

    @property
    def vscode(self) -> bool:
        return bool(self.vscode_file) or self.execute.from_vscode or self.jvsc_name is not None


_LABELS: dict[FrontendKind, str] = {
    "jupyterlab": "JupyterLab / Notebook 7 with the jupyter-agent extension",
    "gateway": "JupyterLab / Notebook 7 with the jupyter-agent extension, kernel on another machine (gateway)",
    "vscode": "VS Code",
    "headless": "a headless client (nbclient, papermill, nbconvert or voila)",
    "unknown": "a frontend that did not greet (no jupyter-agent extension, or the page is closed)",
    "none": "none (not in a Jupyter kernel)",
}


@dataclass(frozen=True, kw_only=True)
class Frontend:
    """Who holds the kernel's notebook, and where that notebook is."""

    kind: FrontendKind
    #: The kernel's notebook: its real path on this disk, or for a gateway the page's path under the kernel's
    #: working directory (a name, not a file here). None when the kernel does not know it.
    notebook: Path | None = None
    #: Whether `notebook` is a file on this kernel's disk.
    on_disk: bool = False
    #: Every path that names the same notebook (the session name, VS Code's path, where the page's path lands).
    aliases: frozenset[Path] = frozenset()
    #: The page's server-relative path (JupyterLab, gateway).
    page_path: str | None = None
    #: The notebook's name when only the name is known (VS Code on a remote server).
    name: str | None = None
    #: How it is known, for `%agent status`.
    evidence: str = ""
    #: Why the page greeted but cannot be edited live during a run, or None.
    live_blocked: str | None = None

    @property
    def live(self) -> bool:
        """Edits of the notebook go to the page (shown at once, undoable, the file left to the user's save)."""
        return self.kind in ("jupyterlab", "gateway") and self.live_blocked is None

    @property
    def label(self) -> str:
        return _LABELS[self.kind]

    @property
    def shown_name(self) -> str | None:
        if self.page_path:
            return self.page_path
        if self.notebook is not None:
            return str(self.notebook)
        return self.name

    def names(self, path: Path) -> bool:
        """Whether `path` (a real path) is this kernel's notebook."""
        return path in self.aliases


def detect(
    signals: KernelSignals,
    *,
    hello: Hello | None,
    locate: Callable[[str], Path | None],
) -> Frontend:
    """The frontend from the signals and the page's hello; `locate` finds a page path on this disk (or None)."""
    session = signals.session_path
    if not signals.in_kernel:
        return Frontend(
            kind="none",
            notebook=session,
            on_disk=session is not None and session.is_file(),
            aliases=_paths(session),
            evidence="no Jupyter kernel (terminal IPython or plain Python)",
        )
    if signals.vscode:
        return _vscode(signals)
    if hello is not None:
        return _page(signals, hello, locate(hello.path))
    if signals.execute.allow_stdin is False:
        kind: FrontendKind = "headless"
        evidence = "the cell was sent with allow_stdin false, as nbclient sends it"
    else:
        kind = "unknown"
        evidence = "no jupyter-agent extension greeted this kernel's notebook comm"
    return Frontend(
        kind=kind,
        notebook=session,
        on_disk=session is not None and session.is_file(),
        aliases=_paths(session),
        evidence=evidence,
        live_blocked=signals.pump_missing,
    )


def _paths(*paths: Path | None) -> frozenset[Path]:
    return frozenset(p for p in paths if p is not None)


def _vscode(signals: KernelSignals) -> Frontend:
    execute = signals.execute
    named = signals.vscode_file or str(execute.vscode_notebook or "")
    notebook = real_path(named) if named else None
    if signals.vscode_file:
        evidence = "__vsc_ipynb_file__ is set in the namespace"
    elif execute.from_vscode:
        evidence = "the cell's id is a vscode-notebook-cell: URI"
    else:
        evidence = f"the session name {Path(signals.session_name).name!r} is one VS Code made up"
    return Frontend(
        kind="vscode",
        notebook=notebook,
        on_disk=notebook is not None and notebook.is_file(),
        aliases=_paths(notebook, signals.session_path),
        name=(notebook.name if notebook is not None else signals.jvsc_name),
        evidence=evidence,
    )


def _page(signals: KernelSignals, hello: Hello, located: Path | None) -> Frontend:
    page_path = hello.path.strip("/")
    # Its directory is enough: a notebook being renamed or not yet saved has no file for a moment.
    if located is not None and (located.is_file() or located.parent.is_dir()):
        kind: FrontendKind = "jupyterlab"
        notebook: Path | None = located
        evidence = f"the page showing {page_path or located.name!r} greeted the notebook comm"
    else:
        # Not on this disk: the kernel runs elsewhere. The page's path, under the kernel's own directory, names
        # it (so `notebook_path="work/a.ipynb"` means the page's notebook) — never a file the agent writes.
        kind = "gateway"
        notebook = Path(os.path.normpath(signals.cwd / page_path)) if page_path else signals.session_path
        evidence = (
            f"the page showing {page_path!r} greeted, and that path is not a file on this kernel's disk"
        )
    return Frontend(
        kind=kind,
        notebook=notebook,
        on_disk=kind == "jupyterlab",
        aliases=_paths(notebook, signals.session_path),
        page_path=page_path or None,
        evidence=evidence,
        live_blocked=signals.pump_missing,
    )
