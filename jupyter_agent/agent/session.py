"""`AgentSession`: one per kernel — the conversation, the tools, the rules, the usage — across `%%agent` cells.

The conversation's system prompt and tools are fixed at its first run (`prefix.Prefix`), after a repository's
files are handed over as tool results (`opening.py`); each later request tells what changed by appending
(`updates.py`). With a `project` (the notebook's path, or the working directory), every run is saved as it goes
(sessions/), and `resume` continues a saved session exactly as it was sent — its prefix, its messages, what it had
told — not its read ledger: files and cells are read again before they are edited.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from ..base.journal import RunJournal, set_run_journal
from ..base.tempfiles import sweep_stale
from ..builtin_tools.workflow import todo_list
from ..permissions.policy import PermissionPolicy
from ..sessions.recorder import SessionRecorder
from ..sessions.store import SavedSession, SessionNotFound, SessionSummary, find_session, list_sessions
from ..tools.context import ToolContext
from ..tools.dispatch import Approver, Dispatcher, refuse_all
from ..tools.hooks import Hooks
from ..tools.registry import ToolPool
from ..tools.scope import RunChange, RunScope, own_policy
from ..tools.todo_list import Todo
from .briefing import first_tools, open_conversation, project_files, tools_now, unsendable
from .client import ModelClient
from .config import AgentConfig
from .conversation import Block, Conversation
from .events import Emit, Notice, RunFinished, Usage, ended_before_start
from .facts import SessionFacts, facts_text
from .hook_moments import ErrorWatch, ask_model, hook_facts, last_assistant_text, opening_hooks, stop_failure
from .loop import AgentRun, Tally
from .memory import MemoryFile, load_memory
from .notebook_line import NotebookLine
from .prefix import Prefix, Told
from .prompt import PromptFacts, system_prompt
from .resumed_runs import resumed_history
from .saving import saving
from .session_status import session_status
from .session_values import SessionStatus
from .setup import RunSetup
from .subagent import Subagents
from .updates import Surroundings

if TYPE_CHECKING:
    from ..notebook.frontend import KernelSignals


class AgentSession:
    """Holds everything that lives as long as the kernel's agent; `run` is one `%%agent` cell."""

    def __init__(
        self,
        *,
        pool: ToolPool,
        ctx: ToolContext,
        config: AgentConfig | None = None,
        policy: PermissionPolicy | None = None,
        hooks: Hooks | None = None,
        notebook_path: str | None = None,
        kernel: str = "python3",
        client: ModelClient | None = None,
        project: Path | None = None,
        sessions_root: Path | None = None,
        user_memory: Path | None = None,
    ) -> None:
        """`project`: save sessions under this key (None: not saved). `sessions_root`: where (None: the
        Jupyter data dir). `user_memory`: the user-level AGENTS.md (None: ~/.jupyter_agent/AGENTS.md)."""
        self.pool = pool
        self.ctx = ctx
        self.config = config or AgentConfig()
        self.policy = policy or PermissionPolicy()
        self.hooks = hooks or Hooks()
        self.notebook_path = notebook_path
        self.notebook_line = NotebookLine(notebook_path)
        self.kernel = kernel
        self.client = client or ModelClient()
        self.conversation = Conversation()
        self.journals: list[RunJournal] = []
        #: The todo list as each run found it, by run number: `%agent rewind` puts it back.
        self.todos_before: dict[int, tuple[Todo, ...]] = {}
        #: Why the conversation was replaced, by the generation it started (`%agent rewind` says it); a
        #: generation not listed began with a compaction.
        self.replaced_by: dict[int, str] = {}
        self._tally = Tally()
        self._last_run_cost = 0.0
        self._run_id = 0
        self._running = False
        self.project = project
        self.sessions_root = sessions_root
        self.user_memory = user_memory
        self.recorder: SessionRecorder | None = self._new_recorder() if project is not None else None
        self._memory: list[MemoryFile] | None = None
        #: The running run's event sink (None between runs), for `notify`.
        self._emit: Emit | None = None
        #: The running (or last) run's scope, until the host takes its changes.
        self._scope: RunScope | None = None
        #: The latest `input_transformations` the API reported (for `%agent status`).
        self.transformations: list[dict[str, object]] = []
        #: SessionStart's `source` for the next run; None: its start was told (`%agent reset` ends it).
        self.start_source: str | None = "startup"

    def apply(self, setup: RunSetup) -> None:
        """The one place a run's configuration (the host's `run_setup`) reaches the session, before each run
        and before `%agent status` shows it."""
        self.config = setup.config
        self.policy = setup.policy()
        self.hooks = setup.hooks(
            session=lambda: hook_facts(self.recorder, self.ctx, self.policy),
            report=self.notify,
            ask=lambda prompt, model: ask_model(self.client, self.config, prompt, model),
            woken=self.hooks.woken,  # what a background hook woke the agent with outlives the run's setup
        )
        denied = [str(rule) for rule in setup.deny if rule.pattern is None]
        self.pool.configure(denied=denied, sources=setup.sources, withheld=setup.withheld)
        if setup.sandbox != self.ctx.sandbox:  # `%config AgentMagics.roots = …` since the last run
            self.ctx.sandbox = setup.sandbox

    # runs

    async def run(
        self,
        request: str,
        *,
        emit: Emit,
        approver: Approver,
        attachments: Sequence[Block] = (),
        signals: KernelSignals | None = None,
        cell_id: str | None = None,
    ) -> RunFinished:
        """Run the agent on `request`, continuing the conversation, in a `RunScope` of its own. `emit` is called
        on this loop's thread; `attachments` follow the request in its user message (the kernel's news), so the
        prefix stays the same; `signals` and `cell_id` are what the host knew of the frontend and the running
        cell. What the run changed that outlives it is `take_changes()` afterwards (also after a stop)."""
        if self._running:
            raise RuntimeError("an agent run is already in progress in this session; stop it first")
        self._running, self._emit = True, emit
        try:
            source, self.start_source = self.start_source, None
            added = await opening_hooks(self.hooks, request, source, self.config.model)
            if isinstance(added, str):  # blocked, or a hook's `continue: false`
                return ended_before_start(emit, self.cost_usd, blocked=added)
            scope = await self._open_run(request, signals, cell_id, emit)
            if isinstance(scope, RunFinished):
                return scope
            errors = ErrorWatch(emit)
            run = self._agent_run(
                scope, approver, saving(errors, self.recorder, run_id=scope.run_id, model=self.config.model)
            )
            self._open_conversation(run.searches_used)
            texts = ({"type": "text", "text": t} for t in added)
            finished = await run.run(request, attachments=[*attachments, *texts])
            self.transformations = run.transformations or self.transformations
            self._last_run_cost = finished.cost_usd
            if finished.reason == "error":
                await stop_failure(self.hooks, errors.last, last_assistant_text(self.conversation))
            return finished
        finally:
            self._emit, self._running = None, False

    async def _open_run(
        self, request: str, signals: KernelSignals | None, cell_id: str | None, emit: Emit
    ) -> RunScope | RunFinished:
        """The run's scope: its number and journal, the frontend found, the session's policy copied, a Task
        runner; or the end of a run that cannot be sent."""
        journal = self._new_journal(request)
        if swept := sweep_stale():  # no await before the run's journal is set: a stop reaches its handler
            emit(Notice(level="info", message=f"removed {swept} temp file(s) a stopped kernel left behind"))
        running_cell = await self.notebook_line.update(self.ctx.services.notebooks, signals, cell_id)
        refused = unsendable(self.conversation, self.config.model)
        if refused is not None:
            return ended_before_start(emit, self.cost_usd, error=refused)
        self._scope = RunScope(
            run_id=journal.run_id,
            journal=journal,
            policy=own_policy(self.policy),
            signals=signals,
            running_cell_id=running_cell,
            subagents=Subagents(
                facts=self._facts, memory=self.memory, project_files=project_files(self.memory)
            ),
        )
        return self._scope

    def _open_conversation(self, searches_used: int) -> None:
        """Fix the prefix at a conversation's first request (later runs leave it as it is)."""
        open_conversation(
            self.conversation,
            system=self.system_prompt(),
            tools=first_tools(self.pool, searches_used, self.config.provider),
            pool=self.pool,
            memory=self.memory,
        )

    def _new_journal(self, request: str) -> RunJournal:
        """The next run's number and journal: kept for undo, and saved with the request."""
        journal = self._journal(request, by="")
        set_run_journal(journal)  # in this run's task context: its notebook file writes are kept
        if self.recorder is not None:
            self.recorder.request(self._run_id, request, journal.message_start)
        return journal

    def outside_journal(self, request: str, by: str) -> RunJournal:
        """An outside call's journal (`%agent serve`): kept like a run's for undo and review, not in the talk.

        It has its place in the conversation (where the next request would go) and the todo list it found, so
        `%agent rewind` to before it cuts the agent's later runs and undoes every run since, outside or not."""
        return self._journal(request, by=by)

    def _journal(self, request: str, *, by: str) -> RunJournal:  # an outside call's is not saved
        self._run_id += 1
        journal = RunJournal(
            run_id=self._run_id,
            request=request,
            by=by,
            message_start=self.conversation.position(),
            generation=self.conversation.generation,
            saved_as=(self.recorder.id, self._run_id) if self.recorder is not None and not by else None,
        )
        self.journals.append(journal)
        self.todos_before[self._run_id] = todo_list(self.ctx).items
        return journal

    def take_changes(self) -> tuple[RunChange, ...]:
        """What the last run changed that outlives it, as it recorded them (once: a second call says nothing)."""
        scope, self._scope = self._scope, None
        return tuple(scope.changes) if scope is not None else ()

    def notify(self, message: str) -> None:
        """A warning for the person, shown in the running cell (e.g. a hook that failed); dropped between runs."""
        if self._emit is not None:
            self._emit(Notice(level="warning", message=message))

    # what the model is told

    def pending_update(self) -> str | None:
        """What the next request will tell about the session's facts (all of them for a new conversation)."""
        return facts_text(self.conversation.told.facts, self._facts().lines())

    def _facts(self) -> SessionFacts:
        shown, note = self.notebook_line.facts
        return SessionFacts(
            cwd=str(self.ctx.sandbox.cwd),
            kernel=self.kernel,
            mode=(self._scope.policy if self._running and self._scope is not None else self.policy).mode,
            date=date.today().isoformat(),
            notebook=shown,
            notebook_note=note,
            tool_names=tuple(self.pool.active()),
        )

    def _agent_run(self, scope: RunScope, approver: Approver, emit: Emit) -> AgentRun:
        dispatcher = Dispatcher(pool=self.pool, scope=scope, hooks=self.hooks, approver=approver)
        run = AgentRun(
            run_id=self._run_id,
            conversation=self.conversation,
            client=self.client,
            dispatcher=dispatcher,
            ctx=self.ctx.for_run(scope),
            config=self.config,
            surroundings=Surroundings(
                facts=self._facts, tools=lambda searches: tools_now(self.pool, searches)
            ),
            emit=emit,
            session_tally=self._tally,
            mode=scope.policy.mode,
            recorder=self.recorder,
        )
        if isinstance(scope.subagents, Subagents):
            scope.subagents.bind(run)
        return run

    async def compact(self, *, emit: Emit) -> bool:
        """`%agent compact`: summarise the conversation now; False when there is nothing to compact or it failed."""
        if self._running:
            raise RuntimeError("cannot compact while a run is in progress; stop it first")
        if len(self.conversation) < 2 or self.conversation.prefix is None:
            emit(Notice(level="info", message="nothing to compact yet"))
            return False
        self._running = True
        try:
            run = self._agent_run(
                RunScope(run_id=self._run_id, policy=own_policy(self.policy)), refuse_all, emit
            )
            return await run.compact(automatic=False)
        finally:
            self._running = False

    # saved sessions

    def _new_recorder(self, resumed_from: str | None = None, base_messages: int = 0) -> SessionRecorder:
        assert self.project is not None
        return SessionRecorder(
            project=self.project,
            notebook=self.notebook_path,
            root=self.sessions_root,
            resumed_from=resumed_from,
            base_messages=base_messages,
        )

    def saved_sessions(self) -> list[SessionSummary]:
        return [] if self.project is None else list_sessions(self.project, root=self.sessions_root)

    def load_saved(self, ident: str | None = None) -> SavedSession:
        """A saved session of this project: `ident` (an id or its start), else the latest other than this one."""
        if self.project is None:
            raise SessionNotFound(
                "SESSION_NOT_FOUND: this agent session is not saved, so there is nothing to resume"
            )
        current = self.recorder.id if self.recorder is not None and not ident else None
        return find_session(self.project, ident, root=self.sessions_root, exclude=current)

    def resume(self, saved: SavedSession) -> None:
        """Continue `saved` exactly as it was sent — its system prompt and tools, its messages, what it had told
        (a kernel restart since is told as an update) — with a fresh read ledger, in a new file that continues
        the saved one (it holds only what is new)."""
        if self._running:
            raise RuntimeError("cannot resume while a run is in progress; stop it first")
        prefix = Prefix.from_json(saved.prefix) if saved.prefix is not None else None
        told = Told.from_json(saved.told) if saved.told is not None else Told()
        self.conversation.restore(saved.messages, prefix=prefix, told=told)
        self.conversation.repair()
        self.replaced_by[self.conversation.generation] = "resume"
        self.start_source = "resume"
        self.journals = resumed_history(self.journals, saved, self.conversation)
        self.ctx.reads.clear()
        self._run_id = max([self._run_id, saved.last_run_id, *(j.run_id for j in self.journals)])
        if self.project is not None:
            self.recorder = self._new_recorder(resumed_from=saved.id, base_messages=len(saved.messages))
            self.recorder.continues(saved.prefix, saved.told)

    @property
    def memory(self) -> list[MemoryFile]:
        """The AGENTS.md / CLAUDE.md files in the system prompt: read on first use, again after `reset`."""
        if self._memory is None:
            sandbox = self.ctx.sandbox
            self._memory = load_memory(sandbox.cwd, sandbox.roots, user_file=self.user_memory)
        return self._memory

    def system_prompt(self) -> str:
        """The conversation's system prompt: as fixed at its first run, or as the next conversation's would be."""
        if self.conversation.prefix is not None:
            return self.conversation.prefix.system
        said = self.config
        style, extra = said.output_style, said.extra_instructions
        return system_prompt(PromptFacts(extra_instructions=extra, memory=self.memory, output_style=style))

    def reset(self) -> None:
        """Forget the conversation, what was read (the next edit needs a fresh read) and the todo list;
        keep usage and history. The memory files are read again, and the next run is saved as a new session."""
        if self._running:
            raise RuntimeError("cannot reset while a run is in progress; stop it first")
        self.conversation.reset()
        self.replaced_by[self.conversation.generation] = "reset"
        self.start_source = "clear"
        self.notebook_line.reset()
        self.ctx.reads.clear()
        todo_list(self.ctx).clear()
        self._memory = None
        if self.project is not None:
            self.recorder = self._new_recorder()

    async def aclose(self) -> None:
        """Close the SDK client's connections (on the loop that used them) before that loop goes away."""
        await self.client.close()

    # what the magics show

    @property
    def running(self) -> bool:
        return self._running

    @property
    def usage(self) -> Usage:
        return self._tally.usage

    @property
    def cost_usd(self) -> float:
        return self._tally.cost_usd

    @property
    def run_count(self) -> int:
        return self._run_id

    @property
    def last_run_cost(self) -> float:
        return self._last_run_cost

    @property
    def status(self) -> SessionStatus:
        return session_status(self)

    @property
    def history(self) -> list[RunJournal]:
        """Past runs, oldest first: each with its request and the changes it made (for undo)."""
        return list(self.journals)
