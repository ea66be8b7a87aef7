"""Run the tool calls of one model turn and report each card: started → running → finished.

Calls go through the dispatcher (validation, hooks, permission, approval) and the scheduler (read-only
calls together, the others one at a time). The runner remembers which calls finished, so a run that is
cancelled half-way can answer the rest as INTERRUPTED and keep the results that exist.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence

from ..base.journal import Change, FileChange
from ..base.result import ToolResult
from ..base.stopping import current_stop
from ..masking import cap_text
from ..tools.context import ToolContext
from ..tools.core import ToolCall, ToolKind
from ..tools.dispatch import Dispatched, Dispatcher
from ..tools.scheduler import run_scheduled
from .conversation import interrupted_result
from .events import AgentEvent, ToolFinished, ToolProgress, ToolRunning

Results = list[tuple[str, ToolResult]]


class ToolRunner:
    def __init__(
        self,
        *,
        dispatcher: Dispatcher,
        ctx: ToolContext,
        emit: Callable[[AgentEvent], None],
        max_result_chars: int,
    ) -> None:
        self.dispatcher = dispatcher
        self.ctx = ctx
        self.emit = emit
        self.max_result_chars = max_result_chars
        self._calls: Sequence[ToolCall] = ()
        self._done: dict[int, Dispatched] = {}
        #: When each call of this turn began (monotonic), for the card of one a stop cut short.
        self._began: dict[str, float] = {}

    @property
    def active(self) -> bool:
        """True between the start of `run` and its end: a cancellation must answer these calls."""
        return bool(self._calls)

    def kind_of(self, name: str) -> ToolKind:
        tool = self.dispatcher.tools().get(name)
        return tool.kind if tool is not None else "other"

    def facts(self, name: str) -> tuple[ToolKind, str | None]:
        """The tool's kind and the input field its card shows as the model writes it (`Tool.streamed_field`)."""
        tool = self.dispatcher.tools().get(name)
        return (tool.kind, tool.streamed_field) if tool is not None else ("other", None)

    async def run(self, calls: Sequence[ToolCall]) -> Results:
        self._calls, self._done = calls, {}
        finished = await run_scheduled(calls, self._one, self.dispatcher.is_read_only, self._done)
        self._calls = ()
        return [(call.id, d.result) for call, d in zip(calls, finished, strict=True)]

    async def _one(self, call: ToolCall) -> Dispatched:
        self._began[call.id] = time.monotonic()

        def running(title: str) -> None:
            self.emit(ToolRunning(call_id=call.id, title=title))

        def progress(done: str, message: str) -> None:
            self.emit(ToolProgress(call_id=call.id, done=done, message=message))

        ctx = dataclasses.replace(self.ctx, progress=progress)
        dispatched = await self.dispatcher.dispatch(call, ctx, on_running=running)
        dispatched = dataclasses.replace(dispatched, result=self._capped(dispatched.result))
        self.emit(
            ToolFinished(
                call_id=call.id,
                name=call.name,
                title=dispatched.title,
                kind=dispatched.kind,
                result=dispatched.result,
                duration=dispatched.duration,
                decision=dispatched.decision,
            )
        )
        return dispatched

    def _capped(self, result: ToolResult) -> ToolResult:
        if len(result.content) <= self.max_result_chars:
            return result
        return dataclasses.replace(result, content=cap_text(result.content, self.max_result_chars))

    def abandon(self, message: str | None = None) -> Results:
        """The results so far, with every unfinished call answered (and its card closed) as not run — or,
        for a call whose change landed before the stop (a Write's rename), as interrupted after that change."""
        current_stop().settle()  # a change being committed lands (or is refused) before we say which
        results: Results = []
        for index, call in enumerate(self._calls):
            done = self._done.get(index)
            if done is None:
                landed = self.ctx.journal.made_by(call.id)
                if landed:
                    result = interrupted_result(landed_text(landed, self.ctx))
                else:
                    result = interrupted_result() if message is None else interrupted_result(message)
                self.finish_card(call, result)
            else:
                result = done.result
            results.append((call.id, result))
        self._calls = ()
        return results

    def skip(self, calls: Sequence[ToolCall], message: str | None = None) -> Results:
        """Answer calls that will not run (the turn was cut, the run stopped), closing their cards."""
        results: Results = []
        for call in calls:
            result = interrupted_result() if message is None else interrupted_result(message)
            self.finish_card(call, result)
            results.append((call.id, result))
        return results

    def finish_card(self, call: ToolCall, result: ToolResult) -> None:
        """Close the card of a call that did not finish: its tool's kind and title stay, and the time it ran
        (none when it never began)."""
        began = self._began.get(call.id)
        self.emit(
            ToolFinished(
                call_id=call.id,
                name=call.name,
                title="",
                kind=self.kind_of(call.name),
                result=result,
                duration=None if began is None else time.monotonic() - began,
                decision=None,
            )
        )


def landed_text(changes: Sequence[Change], ctx: ToolContext) -> str:
    """What an interrupted call had already changed, for the model (and the card)."""
    done: list[str] = []
    for change in changes:
        if isinstance(change, FileChange):
            done.append(f"'{ctx.sandbox.display_path(change.path)}' was written")
        else:
            done.append(f"cell '{change.cell_id}' ({change.op}) was changed")
    return (
        f"interrupted by the user after its change was made: {'; '.join(done)} (that stays; `%agent undo` "
        "reverts it); nothing after this point ran"
    )
