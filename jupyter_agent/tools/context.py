"""What a tool gets besides its input: the sandbox, what was read, the run's journal, and the services the
session offers (one typed field each, `ToolServices`).

A service is None when the surroundings do not offer it (no kernel, a sub-agent, a test); the tool that needs
it says so in its result. The services' types are protocols or classes of this layer or below, so `tools/`
never imports the host or the UI that provide them, and nothing here imports a tool.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from ..base.journal import RunJournal
from ..base.kernel_journal import KernelUndoStore
from ..base.result import ToolResult
from ..base.sandbox import Sandbox
from .ledger import ReadLedger
from .question import Question

if TYPE_CHECKING:
    from ..notebook.frontend import KernelSignals
    from ..notebook.provider import NotebookProvider
    from .job_table import BackgroundJobs
    from .permissions import PermissionPolicy
    from .workflow.agent_types import SubagentCall
    from .workflow.checklist import TodoList


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


class SubagentRunner(Protocol):
    """Runs a Task's sub-agent (the running session's `Subagents`); its final report is the result."""

    async def run(self, call: SubagentCall, ctx: ToolContext) -> ToolResult: ...


@dataclass(kw_only=True)
class ToolServices:
    """Filled by the host when it builds the session; the session-scoped ones are created on first use."""

    #: IPython's `InteractiveShell` in a kernel (untyped library): RunCode and RunCell use its parts.
    shell: Any = None
    #: Runs code on the kernel's main thread (RunCode, RunCell).
    main_thread: MainThread | None = None
    #: Puts questions to the person (AskUserQuestion, ExitPlanMode).
    questions: Asker | None = None
    #: Which backend a notebook path gets (the notebook tools, undo of a cell change).
    notebooks: NotebookProvider | None = None
    #: Runs a Task's sub-agent; only during a run of the top-level session.
    subagents: SubagentRunner | None = None
    #: The session's background shell jobs, created on first use.
    jobs: BackgroundJobs | None = None
    #: The session's todo list, created on first use.
    todos: TodoList | None = None
    #: The `%%agent` cell that is running, by its nbformat id (JupyterLab sends it with the execute request;
    #: for VS Code it is found in the saved notebook by its source): a NotebookEdit insert without cell_id goes
    #: below it.
    running_cell_id: str | None = None
    #: What the kernel knew of its frontend when the run started (the host sets it; the session hands it to
    #: the `notebooks` service).
    signals: KernelSignals | None = None
    #: The run that used its one `set_next_input` payload (a proposed new cell), if any.
    next_input_run: int | None = None
    #: What the kernel journal holds for undo, session-wide, within the budget (shared by sub-agents).
    kernel_undo: KernelUndoStore = field(default_factory=KernelUndoStore)


@dataclass(kw_only=True)
class ToolContext:
    """Shared by the calls of one conversation; `journal` is replaced at the start of each run."""

    sandbox: Sandbox
    reads: ReadLedger = field(default_factory=ReadLedger)
    journal: RunJournal = field(default_factory=lambda: RunJournal(run_id=0))
    #: The user's namespace when the agent runs in a kernel (ListVariables, Inspect, RunCode).
    namespace: dict[str, Any] | None = None
    #: What the surroundings offer (kernel shell, main thread, notebooks, …); None where they do not.
    services: ToolServices = field(default_factory=ToolServices)
    #: The id of the tool_use being run, for tools that report progress.
    tool_use_id: str = ""
    #: The policy deciding this call (set by the Dispatcher; the session's own for a top-level call): searches
    #: leave out what a deny rule hides, and an approved plan (ExitPlanMode) switches its mode at once.
    policy: PermissionPolicy | None = None
    #: Tells the call's card how far the call got: `progress("40/100", "indexing")` (set by the agent's tool
    #: runner; None outside a run).
    progress: Callable[[str, str], None] | None = None
