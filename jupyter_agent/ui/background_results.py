"""A background Task's result, shown in the cell that started it once the sub-agent ends.

`Task` with `run_in_background` returns at once and its card says "in the background as agent_1"; the cell then
ends. When the sub-agent finishes (or fails, or is stopped), that card is redrawn: done or failed, and the first
lines of its report (TaskOutput still gives the whole of it to the model).

The redraw is an update of the card's own display, sent from the worker's thread in the context the cell ran in
(copied when the Task call finished): ipykernel keeps a message's parent in a context variable, so the update goes
out as the started cell's output, never as the output of whatever cell runs at that moment. A page reloaded in
between knows no display ids, so the update would find nothing there: the card is also marked (while the cell
still runs) as a display with a static rendering (`gate.STATIC_MIME`), and its ended rendering goes to the pages
as a `static_view`, which the labextension writes into that output, as it does for a review's (the e2e test
`test_background_task_in_lab.py` fails without it when the page was reloaded).
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import uuid
from collections.abc import Callable
from typing import Any

from ..agent import events as ev
from ..base.result import ToolResult
from ..masking import clip
from ..tools.agent_types import KeptAgents
from .bundles import card_bundle
from .cards import ToolCard
from .gate import STATIC_MIME, update_bundle
from .publish import Publisher

#: Lines of the report the card shows.
REPORT_LINES = 6
#: Characters of those lines at most.
REPORT_CHARS = 600

#: Runs a function on the worker loop's thread (`AgentWorker.call_soon`).
CallSoon = Callable[[Callable[[], Any]], None]
#: Sends a display's static rendering to the pages: its key, the bundle, whether a widget is still live.
SendStatic = Callable[[str, dict[str, str], bool], None]


class BackgroundResults:
    """Watches one run's events for background Tasks, and redraws each one's card when its sub-agent ends."""

    def __init__(
        self, kept: KeptAgents, call_soon: CallSoon, *, send_static: SendStatic | None = None
    ) -> None:
        self.kept = kept
        self.call_soon = call_soon
        self.send_static = send_static

    def seen(
        self, event: ev.AgentEvent, *, card: ToolCard | None, display_id: str | None, publisher: Publisher
    ) -> None:
        """After the view drew `event`: a background Task's finished card is followed to its sub-agent's end."""
        if not isinstance(event, ev.ToolFinished) or event.parent_id or card is None or display_id is None:
            return
        data = event.result.data
        agent_id = data.get("agent_id")
        if data.get("background") is not True or not isinstance(agent_id, str):
            return
        running = self.kept.background.get(agent_id)
        if running is None:
            return
        started = dataclasses.replace(card)
        context = contextvars.copy_context()  # the cell's: its messages' parent
        key = f"jp-agent-background-{uuid.uuid4().hex}"
        send_static = self.send_static
        if send_static is not None:  # while the cell runs, every frontend applies the update
            update_bundle({**card_bundle(card), STATIC_MIME: {"model_id": key}}, display_id=display_id)

        def redraw(task: asyncio.Task[ToolResult]) -> None:
            bundle = card_bundle(ended_card(started, agent_id, task))
            if send_static is None:
                context.run(publisher.update, display_id, bundle, final=True)
                return
            marked: dict[str, Any] = {**bundle, STATIC_MIME: {"model_id": key}}
            context.run(update_bundle, marked, display_id=display_id)
            context.run(send_static, key, bundle, False)

        self.call_soon(lambda: running.task.add_done_callback(redraw))


def ended_card(card: ToolCard, agent_id: str, task: asyncio.Task[ToolResult]) -> ToolCard:
    """The Task card as its background sub-agent ended: done or failed, and the report's first lines."""
    if task.cancelled():
        result = ToolResult.error("INTERRUPTED", f"background sub-agent {agent_id} was stopped")
    elif (error := task.exception()) is not None:
        result = ToolResult.error("EXECUTION_ERROR", f"background sub-agent {agent_id} failed: {error}")
    else:
        result = task.result()
    lines = clip(result.content.strip(), REPORT_CHARS).splitlines()  # masked before any cut
    shown = "\n".join(lines[:REPORT_LINES])  # cut-ok: lines of the text clip masked
    more = (
        "\n… (TaskOutput gives the whole report)"
        if len(lines) > REPORT_LINES or len(result.content) > REPORT_CHARS
        else ""
    )
    how = "failed" if result.is_error else "done"
    summary = f"{how} in the background ({agent_id})"
    shown_result = dataclasses.replace(result, content=shown + more, summary=summary)
    status = "interrupted" if result.error_code == "INTERRUPTED" else "error" if result.is_error else "done"
    return dataclasses.replace(card, result=shown_result, status=status, duration=None)
