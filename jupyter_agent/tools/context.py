"""What a tool gets besides its input: the sandbox, what was read, the services the session offers (one typed
field each, `ToolServices`, made once) and the run it belongs to (`RunScope`: the journal, the policy, …).

A kernel service is None when the surroundings do not offer it (no kernel, a test); the tool that needs it says
so in its result. The services' types are protocols or classes of this layer or below, so `tools/`
never imports the host or the UI that provide them, and nothing here imports a tool.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

from ..base.journal import RunJournal
from ..base.kernel_journal import KernelUndoStore
from ..base.sandbox import Sandbox
from ..notebook.provider import NotebookProvider, kernel_notebook_path
from ..permissions.policy import PermissionPolicy
from .agent_types import KeptAgents
from .job_table import BackgroundJobs
from .ledger import ReadLedger
from .question import Question
from .scope import RunScope
from .todo_list import TodoList

T = TypeVar("T")
A = TypeVar("A")


@runtime_checkable
class MainThread(Protocol):
    """Runs a function on the kernel's main thread for a tool running in the worker."""

    async def call(self, fn: Callable[[], T], *, timeout: float | None) -> T:
        """Run `fn` there; return its value or raise its exception.

        `timeout` is how long the caller is prepared to wait (None: as long as it takes). When it passes,
        raise `TimeoutError`; `fn` may still be running, since a thread cannot be stopped from outside.
        """
        ...


class Asker(Protocol):
    """Puts a question to the person and waits for the answer (the UI channel in a kernel)."""

    async def ask(self, request: Question[A]) -> A: ...


def _notebooks_of_this_process() -> NotebookProvider:
    """Outside a kernel (a test, a script): a file-only provider for the environment's notebook."""
    return NotebookProvider(default_path=kernel_notebook_path())


@dataclass(frozen=True, kw_only=True)
class ToolServices:
    """What lives as long as the session, made once: by `host/build.py` in a kernel (the shell, the main
    thread, the questions channel, the notebooks bound to this kernel), by this constructor otherwise. Frozen:
    nothing replaces a service later (what one run owns is on its `RunScope`)."""

    #: IPython's `InteractiveShell` in a kernel (untyped library): RunCode and RunCell use its parts.
    shell: Any = None
    #: Runs code on the kernel's main thread (RunCode, RunCell).
    main_thread: MainThread | None = None
    #: Puts questions to the person (AskUserQuestion, ExitPlanMode).
    questions: Asker | None = None
    #: Which backend a notebook path gets (the notebook tools, undo of a cell change).
    notebooks: NotebookProvider = field(default_factory=_notebooks_of_this_process)
    #: The session's background shell jobs.
    jobs: BackgroundJobs = field(default_factory=BackgroundJobs)
    #: The session's todo list.
    todos: TodoList = field(default_factory=TodoList)
    #: What the kernel journal holds for undo, session-wide, within the budget (shared by sub-agents).
    kernel_undo: KernelUndoStore = field(default_factory=KernelUndoStore)
    #: The session's finished sub-agents, for a Task call's `resume`.
    subagents: KeptAgents = field(default_factory=KeptAgents)


@dataclass(kw_only=True)
class ToolContext:
    """What a call gets: the session's sandbox, read ledger, namespace and services, and its run's scope. The
    Dispatcher derives each call's context from the run's scope (`for_call`)."""

    sandbox: Sandbox
    reads: ReadLedger = field(default_factory=ReadLedger)
    #: The user's namespace when the agent runs in a kernel (ListVariables, Inspect, RunCode).
    namespace: dict[str, Any] | None = None
    #: What the session offers (kernel shell, main thread, notebooks, …).
    services: ToolServices = field(default_factory=ToolServices)
    #: The run this call belongs to (a fresh scope outside a run).
    run: RunScope = field(default_factory=RunScope)
    #: The id of the tool_use being run, for tools that report progress.
    tool_use_id: str = ""
    #: Tells the call's card how far the call got: `progress("40/100", "indexing")` (set by the agent's tool
    #: runner; None outside a run).
    progress: Callable[[str, str], None] | None = None

    @property
    def journal(self) -> RunJournal:
        """The run's journal: every change a call makes is recorded there, for undo and review."""
        return self.run.journal

    @property
    def policy(self) -> PermissionPolicy:
        """The policy deciding this run's calls: searches leave out what a deny rule hides."""
        return self.run.policy

    def for_run(self, run: RunScope) -> ToolContext:
        """The same session's context inside `run` (a new run's, or a sub-agent's child scope)."""
        return dataclasses.replace(self, run=run, tool_use_id="")

    def for_call(self, run: RunScope, tool_use_id: str) -> ToolContext:
        """The context of one call of `run`."""
        return dataclasses.replace(self, run=run, tool_use_id=tool_use_id)
