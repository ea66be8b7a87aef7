"""What a tool gets besides its input: the sandbox, what was read, the run's journal, the kernel's world."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..base.journal import RunJournal
from ..base.sandbox import Sandbox
from .ledger import ReadLedger
from .services import ToolServices

if TYPE_CHECKING:
    from .permissions import PermissionPolicy


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
