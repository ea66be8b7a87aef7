"""`RunScope`: what one `%%agent` run owns — its journal, what the kernel knew of its frontend when it started,
the running cell, the run's own copy of the permission policy, the sub-agent runner — and the changes the run
makes that outlive it, kept as values (`RuleGranted`, `ModeSwitched`, `NextInputUsed`) and returned with the
run's result for the host to keep. Nothing diffs a policy before and after a run.

The session builds one scope per run (`AgentSession.run`); the Dispatcher derives each call's `ToolContext` from
it. A sub-agent runs in a `child` scope: see its docstring for what it shares with its parent.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..base.journal import RunJournal
from ..permissions.modes import Mode
from ..permissions.policy import PermissionPolicy, Rule
from .agent_types import SubagentRunner
from .small_model import SmallModel

if TYPE_CHECKING:
    from ..notebook.frontend import KernelSignals


@dataclass(frozen=True)
class RuleGranted:
    """ "Always allow" answered a question: the rule joins this run's policy now and the settings after it."""

    rule: Rule
    #: "Always allow in this project": the host writes it to the project's settings.local.json too.
    in_project: bool = False


@dataclass(frozen=True)
class ModeSwitched:
    """An approved plan (ExitPlanMode) switched the mode: for the rest of this run, and for later runs."""

    mode: Mode


@dataclass(frozen=True)
class NextInputUsed:
    """A proposal used the run's one `set_next_input` payload (a new cell below the agent cell); a second
    proposal in the same run must say so instead."""


@dataclass(frozen=True)
class ExecutionCountTaken:
    """RunCell gave a cell the kernel's next execution count, and kept one more for the `%%agent` cell's own reply
    (IPython reports the cell's count as the counter minus one when it ends); later cells of the run take that
    one and keep the next. Ends with its run."""


RunChange = RuleGranted | ModeSwitched | NextInputUsed | ExecutionCountTaken


def own_policy(policy: PermissionPolicy) -> PermissionPolicy:
    """A copy whose rule lists are its own: what a run adds to it never reaches the policy it came from."""
    return dataclasses.replace(policy, allow=list(policy.allow), ask=list(policy.ask), deny=list(policy.deny))


@dataclass(kw_only=True, eq=False)
class RunScope:
    """One run's state; built once per run, dropped when it ends."""

    run_id: int = 0
    journal: RunJournal = field(default_factory=lambda: RunJournal(run_id=0))
    #: This run's policy, a copy of the session's (`own_policy`): "Always allow" and a plan's switch change it
    #: through `record`, never the session's.
    policy: PermissionPolicy = field(default_factory=PermissionPolicy)
    #: What the kernel knew of its frontend when the run started (None outside a kernel).
    signals: KernelSignals | None = None
    #: The `%%agent` cell that is running, by its nbformat id: a NotebookEdit insert without cell_id goes below it.
    running_cell_id: str | None = None
    #: Runs a Task's sub-agent; None in a sub-agent (no nesting) and outside a session's run.
    subagents: SubagentRunner | None = None
    #: The small, fast model a tool may ask (WebFetch's extraction): set by the run that works in this scope
    #: (a sub-agent's by its own run), so its cost counts where the call's does; None outside a run.
    small_model: SmallModel | None = None
    #: What the run changed that outlives it, in order (a child's changes are recorded in its parent's).
    changes: list[RunChange] = field(default_factory=list[RunChange])
    #: The run a sub-agent's scope belongs to (None: a top-level run).
    parent: RunScope | None = None

    def record(self, change: RunChange) -> None:
        """Apply `change` to this scope's policy at once, and keep it for the host (a child passes it up: a
        rule the user granted in a sub-agent counts for the rest of the parent's run too)."""
        if isinstance(change, RuleGranted):
            self.policy.add_allow(change.rule)
        elif isinstance(change, ModeSwitched):
            self.policy.mode = change.mode
        if self.parent is not None:
            self.parent.record(change)
        else:
            self.changes.append(change)

    def attach_small_model(self, model: SmallModel) -> None:
        """The run working in this scope gives it its small model once it has its client (a service for the
        run's tools, not a change of the run's state: nothing records it)."""
        self.small_model = model

    @property
    def next_input_used(self) -> bool:
        return any(isinstance(change, NextInputUsed) for change in self._root().changes)

    @property
    def execution_count_taken(self) -> bool:
        return any(isinstance(change, ExecutionCountTaken) for change in self._root().changes)

    def _root(self) -> RunScope:
        root = self
        while root.parent is not None:
            root = root.parent
        return root

    def child(self) -> RunScope:
        """A sub-agent's scope. It shares the run's journal (its edits are the run's, for undo), the signals and
        the running cell (it works in the same notebook). Its policy is a copy of the parent's as it is now (a
        skill the sub-agent loads narrows only the sub-agent); what it records reaches the parent (`record`).
        It has no sub-agent runner: a sub-agent starts no Task."""
        return RunScope(
            run_id=self.run_id,
            journal=self.journal,
            policy=own_policy(self.policy),
            signals=self.signals,
            running_cell_id=self.running_cell_id,
            subagents=None,
            parent=self,
        )
