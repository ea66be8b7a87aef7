"""What a tool gets besides its input: the sandbox, what was read, the run's journal, the kernel's world."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .journal import RunJournal
from .ledger import ReadLedger
from .sandbox import Sandbox

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
    #: Backend-specific services (notebook bridge, kernel shell), looked up by the tools that need them.
    services: dict[str, Any] = field(default_factory=dict[str, Any])
    #: The id of the tool_use being run, for tools that report progress.
    tool_use_id: str = ""
    #: The policy deciding this call (set by the Dispatcher), for searches that must leave out what a deny
    #: rule hides.
    policy: PermissionPolicy | None = None

    def service(self, name: str) -> Any | None:
        return self.services.get(name)
