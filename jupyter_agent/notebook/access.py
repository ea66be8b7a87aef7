"""The one rule: the kernel's own notebook is never written on disk by the agent while a frontend may hold it.

Every tool that changes a notebook — NotebookEdit, RunCell writing outputs back, Write / Edit / MultiEdit on
an `.ipynb` path, `%agent undo` of a cell change — asks `decide_write` (through the provider) first. The
answer is a value:

- `live`: the change goes through the page (JupyterLab / Notebook 7, also through a gateway); the user sees
  it at once and can undo it; the file is left to the user's save;
- `proposal`: a frontend holds the notebook and cannot be changed from here (VS Code's editor buffer, a page
  without the extension, a headless client's copy in memory): the change is shown to the user to apply,
  and the model is told it was shown, not applied;
- `refuse`: nothing can be done here; the message says what to do instead;
- `file`: no frontend we know of holds it (another notebook that is not open, or no kernel at all): the
  file is read, changed and written atomically.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..base.errors import ToolError
from .frontend import Frontend

WriteKind = Literal["live", "proposal", "refuse", "file"]


@dataclass(frozen=True, kw_only=True)
class WriteDecision:
    kind: WriteKind
    #: The notebook the decision is about (None: this kernel's notebook, which it does not know).
    path: Path | None
    #: Whether it is this kernel's own notebook.
    own: bool
    #: proposal: why it is not applied (said to the model and the user); refuse: the error.
    reason: str = ""
    error: ToolError | None = None

    def refused(self) -> ToolError:
        assert self.error is not None
        return self.error


def holder_reason(frontend: Frontend, name: str) -> str:
    """Why the kernel's own notebook is not written here, in the user's terms (for proposals)."""
    if frontend.live_blocked is not None:
        where = (
            "is open in JupyterLab" if frontend.kind in ("jupyterlab", "gateway") else "may be open in a page"
        )
        return f"'{name}' {where}, but the page cannot be reached while a cell runs: {frontend.live_blocked}"
    if frontend.kind == "vscode":
        return (
            f"VS Code holds '{name}' in its editor, with changes the file on disk does not have (the running "
            "cell's outputs at least); writing the file would conflict with the editor's copy when it saves"
        )
    if frontend.kind == "headless":
        return (
            f"'{name}' is being run by a headless client (nbclient, papermill, nbconvert or voila), which holds it "
            "in memory and saves its own copy when the run ends; a change to the file would be lost or overwrite "
            "the user's notebook"
        )
    return (
        f"'{name}' is open in a frontend that did not answer the jupyter-agent extension's greeting (JupyterLab "
        "or Notebook without the extension, a closed page, another editor); it may hold unsaved changes that "
        "a write to the file would lose"
    )


def decide_write(frontend: Frontend, target: Path | None, *, open_elsewhere: bool = False) -> WriteDecision:
    """What may be done to the notebook at `target` (a real path; None: this kernel's notebook)."""
    own = target is None or frontend.names(target)
    path = frontend.notebook if own else target
    if not own:
        assert target is not None
        if open_elsewhere:
            return WriteDecision(
                kind="refuse",
                path=target,
                own=False,
                error=ToolError(
                    "NOT_AVAILABLE",
                    f"'{target.name}' is open in JupyterLab with another kernel; the agent does not write the file "
                    "of an open notebook. Ask the user to run %%agent in that notebook, or to close it first",
                ),
            )
        return WriteDecision(kind="file", path=target, own=False)
    if path is None:
        return WriteDecision(kind="refuse", path=None, own=True, error=unknown_notebook(frontend))
    if frontend.live:
        return WriteDecision(kind="live", path=path, own=True)
    if frontend.kind == "none":
        return WriteDecision(kind="file", path=path, own=True)
    if not frontend.on_disk:
        return WriteDecision(kind="refuse", path=path, own=True, error=not_on_this_disk(frontend, path))
    return WriteDecision(kind="proposal", path=path, own=True, reason=holder_reason(frontend, path.name))


def unknown_notebook(frontend: Frontend) -> ToolError:
    """NOTEBOOK_NOT_FOUND when the kernel does not know which notebook it belongs to, with what to do."""
    if frontend.kind == "vscode" and frontend.name is not None:
        # VS Code on a remote Jupyter server: only the notebook's name is known, and its file is not here.
        return not_on_this_disk(frontend, Path(frontend.name))
    if frontend.kind == "headless":
        why = (
            "it is run by a headless client that does not say which file it runs (papermill and nbconvert do "
            "not set JPY_SESSION_NAME)"
        )
    elif frontend.kind == "none":
        why = "it is not running in a Jupyter kernel"
    else:
        why = (
            "its frontend did not say (Jupyter Server sets JPY_SESSION_NAME, VS Code sets __vsc_ipynb_file__)"
        )
    return ToolError(
        "NOTEBOOK_NOT_FOUND",
        f"this kernel does not know its notebook: {why}; pass notebook_path to work with a notebook file",
    )


def not_on_this_disk(frontend: Frontend, path: Path) -> ToolError:
    """The notebook lives on another machine and no page serves it: the agent cannot reach its cells."""
    where = (
        "on the machine VS Code runs on, not on this kernel's disk (the kernel runs on a remote Jupyter server)"
        if frontend.kind == "vscode"
        else "not on this kernel's disk (the kernel runs on another machine)"
    )
    blocked = (
        f" The page cannot be reached while a cell runs: {frontend.live_blocked}."
        if frontend.live_blocked
        else ""
    )
    return ToolError(
        "NOTEBOOK_NOT_FOUND",
        f"'{path.name}' is {where}, and no page with the jupyter-agent extension serves it here, so the agent "
        f"cannot read or change its cells.{blocked} Ask the user to paste the cells you need into the request, "
        "or to open the notebook in JupyterLab with the extension",
    )
