"""A notebook change shown to the user instead of made, where the notebook's frontend holds it.

`notebook.access` decides that the kernel's own notebook is not written here (VS Code's editor buffer, a page
without the extension, a headless client's copy). NotebookEdit then proposes: the result's data carries the
proposal (`PROPOSAL_KEY`), which the run view renders under the call — the new source ready to copy, with
its diff. A new code cell is also offered through IPython's `set_next_input` payload, which VS Code (and
JupyterLab) turn into a cell below the running one when it finishes; IPython keeps one such payload per
execution, so only a run's first new code cell is offered that way. The model is told it was shown, not
applied.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

from ...base.result import ToolResult
from ...tools.context import ToolContext
from ...tools.scope import NextInputUsed
from .common import provider_of

#: The key of `ToolResult.data` that carries a proposal to the UI.
PROPOSAL_KEY = "proposal"

ProposalMode = Literal["replace", "insert", "delete", "move"]


@dataclass(frozen=True, kw_only=True)
class Proposal:
    mode: ProposalMode
    notebook: str
    #: The cell replaced or deleted (None for insert).
    cell_id: str | None
    #: insert: the cell the new one should follow (None: the top, or below the running cell when offered).
    after_id: str | None
    cell_type: str
    new_source: str
    old_source: str
    #: Offered as the run's one `set_next_input` payload (a new cell below the running one).
    next_input: bool = False
    #: Why it is not applied, in the user's terms.
    reason: str = ""
    #: replace: the cell's outputs are to be cleared too.
    clear_outputs: bool = False

    def to_data(self) -> dict[str, Any]:
        return asdict(self)


def _take_next_input(ctx: ToolContext) -> bool:
    """True for the run's first offer: IPython keeps one `set_next_input` payload per execution."""
    if ctx.run.next_input_used:
        return False
    ctx.run.record(NextInputUsed())
    return True


def propose(proposal: Proposal, ctx: ToolContext, *, reason: str, diff: str | None) -> ToolResult:
    """The proposal as a result: data for the UI, and for the model what the user was shown."""
    frontend = provider_of(ctx).frontend
    offerable = proposal.mode == "insert" and proposal.cell_type == "code" and frontend.kind != "headless"
    offered = offerable and _take_next_input(ctx)
    editor = "VS Code" if frontend.kind == "vscode" else "JupyterLab / Notebook"
    shown = _described(proposal, offered=offered, slot_taken=offerable and not offered, editor=editor)
    done = replace(proposal, next_input=offered, reason=reason)
    subject = f"cell {proposal.cell_id}" if proposal.cell_id else f"a new {proposal.cell_type} cell"
    return ToolResult.ok(
        f"Proposed, not applied: {reason}. {shown}",
        summary=f"Proposed a change to {subject} (not applied)",
        diff=diff,
        data={PROPOSAL_KEY: done.to_data(), "notebook": proposal.notebook, "applied": False},
    )


def _described(proposal: Proposal, *, offered: bool, slot_taken: bool, editor: str) -> str:
    clearing = proposal.mode == "replace" and proposal.clear_outputs
    if clearing and proposal.old_source == proposal.new_source:
        return (
            f"The user is shown that the outputs of cell '{proposal.cell_id}' should be cleared; they stay until "
            "the user clears them."
        )
    if proposal.mode == "replace":
        also = " (and that its outputs should be cleared)" if clearing else ""
        return (
            f"The new source of cell '{proposal.cell_id}' and its diff are shown to the user in this cell's "
            f"output{also}, ready to copy into the cell; the notebook is unchanged until they apply it "
            "(NotebookRead shows whether they did once the notebook is saved)."
        )
    if proposal.mode == "delete":
        return f"The user is shown that cell '{proposal.cell_id}' should be deleted; it stays until they delete it."
    if proposal.mode == "move":
        where = f"after cell '{proposal.after_id}'" if proposal.after_id else "to the top"
        return f"The user is shown that cell '{proposal.cell_id}' should move {where}; it stays until they move it."
    if offered:
        return (
            f"The new code cell is offered to the user: {editor} inserts it below the %%agent cell when this cell "
            "finishes (the user can delete it); its source is also shown ready to copy."
        )
    where = f"after cell '{proposal.after_id}'" if proposal.after_id else "where it belongs"
    why = " Only the first new code cell of a run can be inserted for the user." if slot_taken else ""
    return (
        f"The new {proposal.cell_type} cell's source is shown to the user in this cell's output, ready to copy "
        f"into a new cell {where}.{why}"
    )
