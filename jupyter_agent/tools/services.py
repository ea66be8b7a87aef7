"""What the session offers its tools besides the sandbox: one typed field per service.

Each field is None when the surroundings do not offer the service (no kernel, a sub-agent, a test); the
tool that needs it says so in its result. The types are declared in this layer or below it, so `tools/`
never imports the host or the UI that provide them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from .question import Question

if TYPE_CHECKING:
    from ..notebook.frontend import KernelSignals
    from ..notebook.provider import NotebookProvider
    from .job_table import BackgroundJobs
    from .workflow.checklist import TodoList
    from .workflow.task import SubagentRunner


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
