"""What the session offers its tools besides the sandbox: one typed field per service.

Each field is None when the surroundings do not offer the service (no kernel, a sub-agent, a test); the
tool that needs it says so in its result. The types are declared in this layer or below it, so `tools/`
never imports the host or the UI that provide them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..notebook.frontend import KernelSignals
    from ..notebook.provider import NotebookProvider
    from .jobs import BackgroundJobs
    from .kernel.main_thread import MainThread
    from .workflow.asking import Asker
    from .workflow.task import SubagentRunner
    from .workflow.todo import TodoList


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
