"""The agent of one kernel: settings → session and tools; how a `%%agent` cell runs it on the UI thread.

The cell's main thread renders and waits (pumping widget clicks); the agent loop runs on a worker thread.
"""

from __future__ import annotations

from collections.abc import Coroutine
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, TypeVar

from .tools.registration import on_tool_defined
from .ui.channel import AskApproval, UIChannel
from .ui.publish import DisplayPublisher, Publisher, TerminalPublisher

if TYPE_CHECKING:
    from .agent.session import AgentSession
    from .agent.worker import AgentWorker
    from .settings import AgentSettings
    from .tools.function_tool import FunctionTool
    from .ui.approval import WidgetApproval
    from .ui.pump import ShellPump
    from .ui.view import RunView

_UNSUBSCRIBE_KEY = "_jupyter_agent_unsubscribe"
T = TypeVar("T")


class KernelAgent:
    def __init__(self, *, shell: Any, settings: AgentSettings) -> None:
        self.shell = shell
        self.settings = settings
        self.channel = UIChannel()
        self.user_tools: dict[str, FunctionTool] = {}
        self._session: AgentSession | None = None
        self._worker: AgentWorker | None = None
        self.kernel: Any = getattr(shell, "kernel", None)
        self.publisher: Publisher = DisplayPublisher() if self.kernel is not None else TerminalPublisher()
        self._pending: list[WidgetApproval] = []
        self.mcp: Any = None
        self._frontend: bool | None = None

    # -- building ---------------------------------------------------------------------------------------
    @property
    def worker(self) -> AgentWorker:
        if self._worker is None:
            from .agent.worker import AgentWorker

            self._worker = AgentWorker()
        return self._worker

    @property
    def session(self) -> AgentSession:
        if self._session is None:
            from .agent_factory import build_session

            self._session = build_session(self)
        return self._session

    def print_line(self, text: str) -> None:
        print(text)

    def run_blocking(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine on the worker while this thread keeps comm replies flowing (live notebook undo)."""
        future = self.worker.submit(coro)
        if self._wait(future, view=None, pump=self._pump()):
            raise KeyboardInterrupt
        return future.result()

    def _pump(self) -> ShellPump | None:
        from .ui.pump import ShellPump

        return ShellPump.for_kernel(self.kernel) if self.kernel is not None else None

    def _wait(self, future: Future[Any], *, view: RunView | None, pump: ShellPump | None) -> bool:
        """Serve the worker until `future` resolves; True when the user interrupted."""
        from .ui.mainloop import MainLoop

        loop = MainLoop(
            channel=self.channel,
            on_event=view.handle if view is not None else lambda _event: None,
            on_ask=(lambda ask: self._on_ask(ask, view, pump)) if view is not None else _refuse_question,
            on_tick=(lambda: self._tick(view)) if view is not None else lambda: None,
            request_stop=self.worker.stop_current,
            pump=pump,
        )
        loop.wait(future)
        return loop.interrupted

    # -- a run ------------------------------------------------------------------------------------------
    def run_cell(
        self,
        request: str,
        *,
        new: bool = False,
        model: str | None = None,
        mode: str | None = None,
        max_turns: int | None = None,
        allow: list[str] | None = None,
        deny: list[str] | None = None,
        quiet: bool = False,
    ) -> None:
        from .agent_factory import apply_settings, collect_granted_rules
        from .ui.view import RunView

        if new:
            self.reset()
        session = self.session
        run_allow, run_deny = allow or [], deny or []
        apply_settings(self, session, mode=mode, allow=run_allow, deny=run_deny)
        view = RunView(publisher=self.publisher, quiet=quiet)
        pump = self._pump()
        self._frontend = None
        stop = self._show_stop_button()
        future = self.worker.submit(
            session.run(
                request,
                emit=self.channel.emit,
                approver=self.channel.ask,
                max_turns=max_turns,
                model=model,
            )
        )
        try:
            interrupted = self._wait(future, view=view, pump=pump)
        finally:
            self._hide_stop_button(stop)
            collect_granted_rules(self, session, run_allow)
        if interrupted:
            raise KeyboardInterrupt

    def _tick(self, view: RunView) -> None:
        view.tick()
        self._pending = [p for p in self._pending if not p.settle()]

    def _on_ask(self, ask: AskApproval, view: RunView, pump: ShellPump | None) -> None:
        from .tools.dispatch import Approval, ApprovalRequest, Approve
        from .ui.approval import WidgetApproval, ask_on_stdin, headless_refusal, resolve

        request = ask.request
        view.set_status(request.tool_use_id, "asking", request.title)
        if self.kernel is None:  # terminal IPython
            resolve(ask.reply, ask_on_stdin(request))
            return
        if pump is None or not self._frontend_answers(pump):
            resolve(ask.reply, headless_refusal(request))
            return

        def answered(request: ApprovalRequest, answer: Approval) -> None:
            view.set_status(request.tool_use_id, "running" if isinstance(answer, Approve) else "denied")

        approval = WidgetApproval(ask=ask, on_answer=answered)
        approval.show()
        self._pending.append(approval)

    def _frontend_answers(self, pump: ShellPump) -> bool:
        if self._frontend is None:
            from .ui.probe import widget_frontend_answers

            self._frontend = widget_frontend_answers(pump, self.settings.probe_timeout)
        return self._frontend

    def _show_stop_button(self) -> Any:
        if self.kernel is None:
            return None
        import ipywidgets as w
        from IPython.display import display

        button = w.Button(description="Stop", icon="stop", tooltip="Stop the agent (same as Interrupt)")
        button.layout.width = "auto"

        def stop(_button: Any) -> None:
            self.worker.stop_current()

        button.on_click(stop)
        button.add_class("jp-agent-stop")
        handle = display(button, display_id=True)
        return button, handle

    def _hide_stop_button(self, stop: Any) -> None:
        if stop is None:
            return
        button, handle = stop
        button.close()
        if handle is not None:
            handle.update({"text/plain": ""}, raw=True)

    def close(self) -> None:
        """On unload: close MCP connections on the loop that opened them, then stop the worker."""
        if self._worker is None:
            return
        if self.mcp is not None:
            try:
                self._worker.submit(self.mcp.aclose()).result(timeout=10)
            except Exception as exc:
                print(f"jupyter_agent: closing MCP servers failed: {exc}")
            self.mcp = None
        self._worker.shutdown()
        self._worker = None

    # -- subcommands ------------------------------------------------------------------------------------
    def reset(self) -> None:
        if self._session is not None:
            self._session.reset()

    def show_status(self) -> None:
        from .agent_factory import status_text

        print(status_text(self))

    def show_history(self) -> None:
        from .agent_factory import history_text

        print(history_text(self))

    def show_tools(self) -> None:
        from .agent_factory import tools_text

        print(tools_text(self))

    def undo(self) -> None:
        from .agent_factory import undo_last_run

        print(undo_last_run(self))

    # -- user tools -------------------------------------------------------------------------------------
    def register_user_tool(self, made: FunctionTool) -> None:
        self.user_tools[made.name] = made
        if self._session is not None:
            self._session.pool.add("user", made)


def track_user_tools(shell: Any, magics: Any) -> None:
    """`@jupyter_agent.tool` in a cell registers the function with this kernel's agent."""
    untrack_user_tools(shell)

    def listener(made: FunctionTool) -> None:
        magics.kernel_agent.register_user_tool(made)

    setattr(shell, _UNSUBSCRIBE_KEY, on_tool_defined(listener))


def untrack_user_tools(shell: Any) -> None:
    unsubscribe = getattr(shell, _UNSUBSCRIBE_KEY, None)
    if unsubscribe is not None:
        unsubscribe()
        delattr(shell, _UNSUBSCRIBE_KEY)


def _refuse_question(ask: AskApproval) -> None:
    """Undo never asks; a stray question from an earlier run is cancelled."""
    ask.reply.cancel()
