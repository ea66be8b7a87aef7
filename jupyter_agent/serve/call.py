"""One outside call, in its turn on the kernel's main thread: the package's own Dispatcher on the agent's
worker, while this thread shows the call on the board, answers its approval, runs its code (RunCode, RunCell
post to the `UIChannel`, as the agent's do) and keeps widget clicks flowing (`ui/mainloop.py`).

Each call is one run of its own (a journal numbered like the agent's runs, with the client's name in its request):
`%agent review` lists it, `%agent undo` reverts it — files, cells and the kernel's variables. Validation, hooks,
the permission policy (the server's mode and rules on top of the project's and the user's), protected paths and
masking are the Dispatcher's, as for the agent.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..base.journal import set_run_journal
from ..base.result import ToolResult
from ..base.stopping import within
from ..tools.core import ToolCall
from ..tools.dispatch import Approval, ApprovalRequest, Dispatched, Dispatcher, Reject
from ..tools.ledger import ReadLedger
from ..tools.scope import RunScope, own_policy
from ..ui.cards import ToolCard
from ..ui.mainloop import MainLoop
from ..ui.pump import ShellPump
from .board import CallPresenter, ServeBoard
from .options import ServeOptions

if TYPE_CHECKING:
    from ..host.kernel_agent import KernelAgent


@dataclass(frozen=True, kw_only=True)
class OutsideCall:
    name: str
    arguments: dict[str, Any]
    #: The client's `clientInfo.name` (what review and the board call it).
    client: str
    #: What this client read (an edit needs a fresh read by the same client, never by the agent or another one).
    reads: ReadLedger


@dataclass(kw_only=True)
class CallRunner:
    """Runs outside calls for one `%agent serve`; `run` is called on the main thread, in the call's turn."""

    agent: KernelAgent
    options: ServeOptions
    board: ServeBoard
    #: The `%agent serve` cell's request: output and status during a call go to that cell.
    serve_parent: dict[str, Any]
    #: Why no one can answer an approval (a headless client), known when the server started; None: ask the page.
    no_answer: str | None
    served: int = 0

    def run(self, call: OutsideCall) -> ToolResult:
        from ..host.configure import configure
        from ..host.options import RunOptions

        agent = self.agent
        session = agent.session
        options = self.options
        configure(
            session,
            agent.settings,
            RunOptions(mode=options.mode, allow=options.allow, deny=options.deny),
            project=agent.project,
        )
        pump = ShellPump.for_kernel(agent.kernel)
        if pump is None:
            from ..ui.pump import unsupported_reason

            return ToolResult.error(
                "NOT_AVAILABLE", f"outside calls cannot run here: {unsupported_reason(agent.kernel)}"
            )
        with pump.parent_for(self.serve_parent):
            return self._run(call, pump)

    def _run(self, call: OutsideCall, pump: ShellPump) -> ToolResult:
        agent, session = self.agent, self.agent.session
        signals = agent.kernel_signals()
        session.ctx.services.notebooks.use(signals)
        tool = session.pool.active().get(call.name)
        journal = session.outside_journal(f"{call.name} {_brief(call.arguments)}".rstrip(), by=call.client)
        scope = RunScope(
            run_id=journal.run_id, journal=journal, policy=own_policy(session.policy), signals=signals
        )
        dispatcher = Dispatcher(
            pool=session.pool, scope=scope, hooks=session.hooks, approver=self._approver()
        )
        ctx = dataclasses.replace(session.ctx, reads=call.reads).for_run(scope)
        card = ToolCard(
            call_id=f"serve_{uuid.uuid4().hex[:12]}",  # cut-ok: a random id, no text
            name=call.name,
            input=call.arguments,
            kind=tool.kind if tool is not None else "other",
            status="running",
        )
        shown = self.board.started(card, call.client)

        async def dispatch() -> Dispatched:
            set_run_journal(journal)  # in the call's task: its notebook file writes are journaled
            return await dispatcher.dispatch(
                ToolCall(id=card.call_id, name=call.name, input=call.arguments), ctx
            )

        presenter = CallPresenter(
            board=self.board,
            shown=shown,
            no_answer=self.no_answer,
            probe=lambda: _probe(pump, agent.settings.probe_timeout),
            at_cells=agent.review_pages.at_cells,
        )
        started = time.monotonic()
        future = agent.worker.submit(dispatch())
        loop = MainLoop(channel=agent.channel, presenter=presenter, worker=agent.worker, pump=pump)
        try:
            loop.wait(future)
        finally:
            presenter.close()
        result = _result_of(future, interrupted=loop.interrupted)
        card.result, card.duration = result, time.monotonic() - started
        card.status = "denied" if result.error_code == "DENIED" else "error" if result.is_error else "done"
        if not future.cancelled() and future.exception() is None:
            card.title = future.result().title
        self.board.changed(shown)
        self.served += 1
        return result

    def _approver(self) -> Any:
        """The agent's channel (the board asks), bounded by the server's approval timeout (the client is told)."""
        ask, timeout = self.agent.channel.ask, self.options.approval_timeout

        async def approve(request: ApprovalRequest) -> Approval:
            try:
                return await within(ask(request), timeout)
            except TimeoutError:
                return Reject(message=f"no answer in the notebook within {timeout:g} s (--approval-timeout)")

        return approve


def _probe(pump: ShellPump, timeout: float) -> bool:
    from ..ui.probe import widget_frontend_answers

    return widget_frontend_answers(pump, timeout)


def _result_of(future: concurrent.futures.Future[Dispatched], *, interrupted: bool) -> ToolResult:
    stopped = ToolResult.error("INTERRUPTED", "the user interrupted the kernel; the call was stopped")
    if future.cancelled():
        return stopped
    error = future.exception()
    if error is not None:
        if interrupted or isinstance(error, (KeyboardInterrupt, concurrent.futures.CancelledError)):
            return stopped
        return ToolResult.error("EXECUTION_ERROR", f"{type(error).__name__}: {error}")
    return future.result().result


def _brief(arguments: dict[str, Any]) -> str:
    """The call's first path or cell, for its line in `%agent review`."""
    for key in ("file_path", "notebook_path", "cell_id", "path", "pattern", "name"):
        value = arguments.get(key)
        if isinstance(value, str) and value:
            return value[:80]
    return ""
