"""The agent of one kernel: it owns the worker thread and the session, starts a run and waits for it.

How the session is built and configured lives in `host/`; how a run is shown and its questions answered
lives in `ui/presenter.py`. This module only ties them together on the kernel's main thread."""

from __future__ import annotations

from collections.abc import Coroutine, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any, TypeVar

from ..base.journal_store import STORE
from ..base.json_values import is_object
from ..ui.channel import UIChannel
from .options import NO_OPTIONS, RunOptions
from .session_end import end_session

if TYPE_CHECKING:
    from ..agent.events import RunFinished
    from ..agent.session import AgentSession
    from ..agent.worker import AgentWorker
    from ..builtin_tools.mcp import McpServers
    from ..notebook.frontend import KernelSignals
    from ..permissions.modes import Mode
    from ..project import ClaudeProject
    from ..settings import AgentSettings
    from ..tools.core import AnyTool
    from ..tools.scope import RunChange
    from ..ui.interrupts import InterruptLatch
    from ..watch.note import KernelNote
    from ..watch.watcher import KernelWatcher, SinceLastLook
    from .build import HostServices, McpLines

T = TypeVar("T")


class KernelAgent:
    """The agent of one IPython kernel (or terminal): one session and one worker thread, kept across cells.

    `%%agent` calls `run_cell`; the `%agent` subcommands (`host/commands.py`) read and reset it. The
    session is built on first use, from the settings and what this kernel offers (`HostServices`).
    """

    def __init__(self, *, shell: Any, settings: AgentSettings, watcher: KernelWatcher | None = None) -> None:
        self.shell = shell
        self.settings = settings
        #: What the user did in the kernel between runs (None outside `%load_ext`, e.g. in tests).
        self.watcher = watcher
        self.kernel: Any = getattr(shell, "kernel", None)
        from .build import page_bridge, register_session_key

        register_session_key(self.kernel)
        STORE.sweep()  # what killed kernels left of their undo records, before this one keeps any
        self.channel = UIChannel()
        self.user_tools: dict[str, AnyTool] = {}
        self._session: AgentSession | None = None
        self._worker: AgentWorker | None = None
        self._mcp: McpServers | None = None
        self._mcp_lines: McpLines | None = None
        self._project: ClaudeProject | None = None
        from .review_page import ReviewPages

        self.bridge = page_bridge(shell, self.kernel)
        self.review_pages = ReviewPages(
            history=lambda: self._session.history if self._session is not None else [],
            ctx=lambda: self.session.ctx,
            submit=lambda coro: self.worker.submit(coro),
            kernel=self.kernel,
        )

    @property
    def worker(self) -> AgentWorker:
        if self._worker is None:
            from ..agent.worker import AgentWorker

            self._worker = AgentWorker()
        return self._worker

    @property
    def session(self) -> AgentSession:
        if self._session is None:
            from .build import build_session

            built = build_session(self.settings, self._services())
            self._session, self._mcp, self._mcp_lines = built.session, built.mcp, built.mcp_lines
        return self._session

    def _services(self) -> HostServices:
        from .build import HostServices

        return HostServices(
            shell=self.shell,
            kernel=self.kernel,
            main_thread=self.channel,
            user_tools=self.user_tools,
            submit=self.worker.submit,
            bridge=self.bridge,
        )

    def greet_the_page(self) -> None:
        """At `%load_ext`: open the comm to the page now, so its hello is in before the first run (which never
        waits for it). Not where no such page can answer: a headless client, VS Code."""
        signals = self.kernel_signals()
        if self.bridge is not None and signals.execute.allow_stdin is not False and not signals.vscode:
            self.bridge.open_early()

    def current_session(self) -> AgentSession:
        """The session with the settings as they are now (`%agent model …` may have changed them)."""
        from .configure import configure

        session = self.session
        if not session.running:
            configure(session, self.settings, project=self.project)
            # `%agent status` says who holds the notebook as of this request
            session.ctx.services.notebooks.use(self.kernel_signals())
        return session

    @property
    def project(self) -> ClaudeProject | None:
        """The notebook's Claude Code project (None when the `claude_project` setting is off)."""
        if not self.settings.claude_project:
            return None
        if self._project is None:
            from ..project import ClaudeProject
            from .build import notebook_sandbox

            sandbox = notebook_sandbox(self.shell, self.settings)
            self._project = ClaudeProject.at(sandbox.cwd, sandbox.roots)
        return self._project

    def project_notices(self) -> None:
        """Print the project files' warnings not shown yet (a malformed settings file, a skill without a
        description, an untrusted project's hooks); reading them never stops the extension from loading."""
        from ..ui.gate import say

        try:
            lines = self.project.take_warnings() if self.project is not None else []
        except (
            Exception
        ) as exc:  # a bug of ours or an unreadable tree: say so, never break %load_ext or a run
            lines = [
                f"jupyter_agent: the Claude Code project files could not be read: {type(exc).__name__}: {exc}"
            ]
        for line in lines:
            say(line)

    # -- a run ------------------------------------------------------------------------------------------
    def run_cell(self, request: str, options: RunOptions | None = None, *, references: bool = True) -> None:
        """One `%%agent` cell: configure, start the run on the worker, show it until it ends.

        `references`: attach what `@name`, `@cell:ID` and `@output:ID[:N]` in the request point at (a request
        the package wrote itself, such as `%agent fix`'s, passes False)."""
        from ..ui.interrupts import InterruptLatch, interrupted_cell

        with InterruptLatch() as latch:
            interrupted = self._run_cell(request, options or RunOptions(), latch, references=references)
        if interrupted or latch.noted:
            raise interrupted_cell()  # one clean end, however late the Interrupt came (`ui/interrupts.py`)

    def _run_cell(
        self, request: str, options: RunOptions, latch: InterruptLatch, *, references: bool
    ) -> bool:
        """`run_cell` inside the latch, to the cell's end (`finish_cell`); True when the user interrupted the run."""
        from ..ui.interrupts import finish_cell
        from ..ui.presenter import RunPresenter
        from .configure import configure

        if options.new:
            self.reset()
        session = self.session
        STORE.configure(cap_bytes=int(self.settings.undo_memory_mb * 2**20))
        self.project_notices()
        configure(session, self.settings, options, project=self.project)
        self.sync_mcp()
        signals = self.kernel_signals()
        session.ctx.services.notebooks.use(signals)  # references are read before the run starts
        self.review_pages.before_run(signals)  # the top of the output, kept for the run's review bar
        presenter = RunPresenter(
            kernel=self.kernel,
            channel=self.channel,
            worker=self.worker,
            quiet=options.quiet or self.settings.quiet,
            probe_timeout=self.settings.probe_timeout,
            signals=signals,
            at_cells=self.review_pages.at_cells,
            background=self.review_pages.background(session.ctx.services.subagents, self.worker.call_soon),
        )
        seen = self.watcher.look() if self.settings.context and self.watcher is not None else None
        future = self.worker.submit(
            self._run_with_references(session, request, seen, signals, references=references)
        )
        try:
            with self._watch_paused():
                interrupted = presenter.wait(future, latch)
        finally:
            self.keep(session.take_changes(), options)
        self.review_pages.after_run(signals)  # the run's review: the page's marks, the footer's rows
        finish_cell(latch, kernel=self.kernel, code=signals.execute.code)
        return interrupted

    def kernel_signals(self) -> KernelSignals:
        """What the kernel knows of its frontend now: the running cell's request, VS Code's traces, the pump."""
        from ..notebook.frontend import ExecuteFacts, KernelSignals
        from ..ui.pump import unsupported_reason

        try:
            parent: Any = self.kernel.get_parent("shell") if self.kernel is not None else None
        except Exception:
            parent = None
        return KernelSignals.read(
            user_ns=getattr(self.shell, "user_ns", None),
            in_kernel=self.kernel is not None,
            execute=ExecuteFacts.of(parent if is_object(parent) else None),
            pump_missing=unsupported_reason(self.kernel) if self.kernel is not None else None,
        )

    async def _run_with_references(
        self,
        session: AgentSession,
        request: str,
        seen: SinceLastLook | None,
        signals: KernelSignals,
        *,
        references: bool,
    ) -> RunFinished:
        """On the worker: the request's references are read (the live notebook answers through the pump), then
        the run. A reference that could not be attached is said in one line of the run's output."""
        from ..watch.note import note_blocks

        attachments = await note_blocks(seen, session.ctx)  # the kernel note, with cells edited since read
        if references:
            from ..agent.events import Notice
            from ..references import attach_references, merged

            attached = await attach_references(request, session.ctx)
            if attached.note is not None:
                self.channel.emit(Notice(level="warning", message=attached.note))
            attachments = merged(attached.blocks, attachments)
        return await session.run(
            request,
            emit=self.channel.emit,
            approver=self.channel.ask,
            attachments=attachments,
            signals=signals,
            cell_id=signals.execute.cell_id,
        )

    def kernel_note(self, *, peek: bool = False) -> KernelNote | None:
        """What happened in the kernel since the agent last looked; `peek` leaves it for the next run."""
        from ..watch.note import render_note

        if self.watcher is None:
            return None
        return render_note(self.watcher.peek() if peek else self.watcher.look())

    def _watch_paused(self) -> AbstractContextManager[None]:
        """What the agent's own run does in the kernel is not news for its next run."""
        return self.watcher.paused() if self.watcher is not None else nullcontext()

    def set_mode(self, mode: Mode) -> None:
        """`%agent mode`: later runs start in `mode`, written where a run's switch is (`keep`)."""
        from ..tools.scope import ModeSwitched

        self.keep((ModeSwitched(mode),))

    def keep(self, changes: Sequence[RunChange], options: RunOptions = NO_OPTIONS) -> None:
        """The one place a run's (or `%agent mode`'s) changes become settings, so later runs start from them:
        "Always allow" answers (`RuleGranted`) as allow rules (in this project: in its file); a switched mode (`ModeSwitched`: an approved
        plan), unless this run's mode came from its own `--mode` flag. A used next input ends with its run."""
        from ..project.local_rules import session_rules
        from ..tools.scope import ModeSwitched
        from ..ui.gate import say

        known = list(self.settings.allow)
        new = [text for text in session_rules(changes, self.project, say) if text not in known]
        if new:
            self.settings.allow = [*known, *new]
        for change in changes:
            if isinstance(change, ModeSwitched) and options.mode is None:
                self.settings.mode = change.mode

    def run_blocking(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine on the worker while this thread keeps comm replies flowing (live notebook undo)."""
        from ..ui.presenter import wait_quietly

        future = self.worker.submit(coro)
        if wait_quietly(kernel=self.kernel, channel=self.channel, worker=self.worker, future=future):
            raise KeyboardInterrupt
        return future.result()

    # -- MCP servers ------------------------------------------------------------------------------------
    @property
    def mcp(self) -> McpServers:
        """The session's MCP servers (building the session starts them)."""
        assert self.session is not None and self._mcp is not None
        return self._mcp

    def sync_mcp(self) -> None:
        """A changed `mcp_servers` setting, or a changed `.mcp.json` / approval, applies now (servers start, stop,
        restart in the background); lines servers reported since the last cell are printed."""
        from .build import MCP_START_TIMEOUT, apply_mcp_settings

        claude = self.project.settings if self.project is not None else None
        self.worker.submit(apply_mcp_settings(self.mcp, self.settings, claude)).result(MCP_START_TIMEOUT)
        from ..ui.gate import say

        for line in self._mcp_lines.take() if self._mcp_lines is not None else []:
            say(f"jupyter_agent: {line}")  # masked there: a server's command line or stderr may hold a token

    # -- what the subcommands do ------------------------------------------------------------------------
    def reset(self) -> None:
        if (session := self._session) is not None:
            end_session(session, self._worker, "clear")  # SessionEnd, then a new conversation
            session.reset()
        STORE.release()  # the undo records go to disk: undo still works, the memory is free
        if self._project is not None:
            self._project.reload()  # skills, agents and commands are read again, like the memory files

    def resume(self, ident: str | None) -> str:
        """`%agent resume [ID]`: continue a saved session of this notebook; say which and what it held."""
        session = self.current_session()
        saved = session.load_saved(ident)
        session.resume(saved)
        from ..masking import clip

        first = clip(" ".join(saved.first_request.split()), 80, marker="")
        damage = f"\nThe saved file is damaged: {saved.damage}." if saved.damage else ""
        return (
            f"resumed session {saved.id} ({len(saved.messages)} messages, {len(saved.runs)} run(s), "
            f"${saved.cost_usd:.4f}; it began with {first!r}). Files and cells are read again before "
            f"they are edited.{damage}"
        )

    def export(self, path: str | None) -> str:
        """`%agent export [PATH]`: this conversation as Markdown, written next to the notebook by default."""
        from ..sessions import SavedSession, load_session
        from ..sessions.export import write_export

        session = self.session
        recorder = session.recorder
        if recorder is not None and recorder.started:
            saved = load_session(recorder.path)
        else:
            saved = SavedSession(
                id="unsaved", path=session.ctx.sandbox.cwd, messages=session.conversation.messages
            )
        written = write_export(path, saved, session.ctx.sandbox)
        return f"exported {len(saved.messages)} messages to {written}"

    def compact(self) -> str:
        """`%agent compact`: summarise the conversation now; one line says what it did."""
        from ..agent.events import AgentEvent, Compacted, Notice
        from ..ui.view import compaction_line

        said: list[str] = []

        def collect(event: AgentEvent) -> None:
            if isinstance(event, Compacted):
                said.append(compaction_line(event))
            elif isinstance(event, Notice):
                said.append(event.message)

        self.run_blocking(self.current_session().compact(emit=collect))
        return "\n".join(said)

    def undo(self, *, force: bool = False) -> str:
        """Revert the newest run with changes not yet undone; say what was done (`force`: `%agent undo --force`,
        also the variables undo could not check for a later change)."""
        from ..undo.run import undo_run

        session = self.session
        for journal in reversed(session.history):
            if (journal.changes or journal.kernel) and not journal.undone:
                said = self.run_blocking(undo_run(journal, session.ctx, force=force))
                self.review_pages.publish([journal])  # the page's marks and the run's review follow
                return said
        return "nothing to undo"

    def register_user_tool(self, made: AnyTool) -> None:
        self.user_tools[made.name] = made
        if self._session is not None:
            self._session.pool.add("user", made)

    def close(self) -> None:
        """On unload: SessionEnd, stop background jobs, close MCP connections on their loop, stop the worker."""
        self.review_pages.unregister()
        end_session(self._session, self._worker, "other")
        if self._session is not None:
            self._session.ctx.services.jobs.kill_all()
        if self._worker is None:
            return
        if self._mcp is not None:
            try:
                self._worker.submit(self._mcp.aclose()).result(timeout=10)
            except Exception as exc:
                print(f"jupyter_agent: closing MCP servers failed: {exc}")
            self._mcp = None
        self._worker.shutdown()
        self._worker = None
