"""Renders one run's events into the cell output: streamed Markdown, tool cards, notices, a footer."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..agent import events as ev
from ..agent.pricing import OFFLINE_DEMO, offline_demo
from ..base.json_values import is_array, is_object
from ..builtin_tools.notebook.proposal import PROPOSAL_KEY
from ..builtin_tools.notebook.run import CELL_OUTPUTS_KEY
from ..builtin_tools.workflow.todo import TodoWrite
from ..masking import clip
from .bundles import answer_bundle, card_bundle, stopped_bundle, thinking_bundle
from .cards import Status, ToolCard
from .checklist import checklist_bundle
from .countdown import Countdown
from .gate import markdown_to_html
from .html import MUTED, NO_MATH, esc, legible
from .proposal_view import offer, outputs_bundle, proposal_bundle
from .publish import Bundle, Publisher

#: Shown from the run's request until its first text or tool block (`RunView._waiting`).
WAITING_TEXT = "thinking…"
_WAITING_BUNDLE: Bundle = {
    "text/plain": WAITING_TEXT,
    "text/html": f'<div class="jp-agent-waiting" role="status" style="font-style:italic;font-size:12px;">'
    f"{WAITING_TEXT}</div>",
}
#: What a display that has nothing more to show becomes (a display cannot be removed).
_GONE: Bundle = {"text/plain": "", "text/html": ""}
#: At most ~15 updates of the streamed text per second, however fast the deltas come.
MIN_UPDATE_INTERVAL = 1 / 15


@dataclass
class _TextBlock:
    display_id: str
    text: str = ""
    shown: str = ""
    #: Extended thinking: shown collapsed and dimmed, never streamed as the answer.
    thinking: bool = False

    def bundle(self) -> Bundle:
        return thinking_bundle(self.text) if self.thinking else answer_bundle(self.text)


@dataclass
class RunView:
    """One run's output in the cell: streamed Markdown blocks, a card per tool call, notices and a footer.

    It owns every card's status: events from the worker and the presenter's question notes both change a
    card only through `_card_set` / `_finish_card` here.
    """

    publisher: Publisher
    quiet: bool = False
    cards: dict[str, ToolCard] = field(default_factory=dict[str, ToolCard])
    _card_ids: dict[str, str] = field(default_factory=dict[str, str])
    _blocks: list[_TextBlock] = field(default_factory=list[_TextBlock])
    _open: _TextBlock | None = None
    #: TodoWrite calls: shown as the one checklist, not as cards.
    _todo_calls: set[str] = field(default_factory=set[str])
    _checklist_id: str | None = None
    #: A sub-agent's call → the Task call it is nested under.
    _parents: dict[str, str] = field(default_factory=dict[str, str])
    _last_update: float = 0.0
    updates: int = 0
    finished: ev.RunFinished | None = None
    _countdown: Countdown = field(init=False)
    #: The "thinking…" display, from the request until the first text (which takes its place) or other block.
    _waiting: str | None = None

    def __post_init__(self) -> None:
        self._countdown = Countdown(self.publisher)

    # -- events -----------------------------------------------------------------------------------------
    def handle(self, event: ev.AgentEvent) -> None:
        if isinstance(event, ev.RunStarted):
            self._waiting = self.publisher.show(_WAITING_BUNDLE)
            return
        if self._waiting is not None and not isinstance(event, ev.UsageUpdate | ev.TextDelta):
            self.publisher.update(self._waiting, _GONE)  # something else came first: the line goes
            self._waiting = None
        if isinstance(event, ev.RetryWait):
            self._close_text()
            self._countdown.start(event)
            return
        if not isinstance(event, ev.UsageUpdate | ev.ToolProgress):
            self._countdown.end()  # something happened after the wait: the retry started
        match event:
            case ev.TextDelta(text=text):
                self._text(text)
            case ev.TextDone() | ev.ThinkingDone():
                self._close_text()
            case ev.ThinkingDelta(text=text):
                self._thinking(text)
            case ev.Compacted() as compacted:
                self._close_text()
                self._note(compaction_line(compacted), warn=False, icon="🗜️")
            case ev.ToolWriting(call_id=call_id, name=name) if name != TodoWrite.name and not event.parent_id:
                self._card_writing(event)
            case ev.ToolStarted(parent_id=parent) if parent:
                self._child_started(event)
            case ev.ToolStarted(call_id=call_id, name=TodoWrite.name):
                self._todo_calls.add(call_id)
            case ev.ToolStarted(call_id=call_id, input=tool_input) if call_id in self.cards:
                self._card_written(call_id, tool_input)
            case ev.ToolStarted(call_id=call_id, name=name, input=tool_input, kind=kind):
                self._close_text()
                self._card_new(
                    ToolCard(call_id=call_id, name=name, input=tool_input, kind=kind, collapsed=self.quiet)
                )
            case ev.ToolRunning(call_id=call_id, parent_id=parent) if parent:
                self._child_update(parent, call_id, status="running")
            case ev.ToolRunning(call_id=call_id, title=title):
                self._card_set(call_id, status="running", title=title)
            case ev.ToolProgress(call_id=call_id, done=done, message=message, parent_id=""):
                self._card_progress(call_id, " ".join(part for part in (done, message) if part))
            case ev.ToolFinished(parent_id=parent) if parent:
                self._child_finished(event)
            case ev.ToolFinished(call_id=call_id) if call_id in self._todo_calls:
                self._todos_finished(event)
            case ev.ToolFinished() as done:
                self._finish_card(done)
            case ev.Notice(level=level, message=message):
                self._close_text()
                self._note(message, warn=level == "warning")
            case ev.ErrorEvent(message=message):
                self._close_text()
                self._note(message, warn=True, error=True)
            case ev.RunFinished() as finished:
                self._close_text()
                self.finished = finished
                if finished.reason == "interrupted":  # one calm line says what ran (never a traceback)
                    self.publisher.show(stopped_bundle(list(self.cards.values())), final=True)
                self._footer(finished)
            case _:
                pass

    def question_asked(self, call_id: str, title: str, *, asked: str = "") -> None:
        """The call waits for the person's answer; `asked` is the call in words, as the question names it."""
        card = self.cards.get(call_id)
        if card is not None and asked:
            card.asked = asked
        self._card_set(call_id, status="asking", title=title)

    def question_answered(self, call_id: str, status: Status) -> None:
        """Answered: the call runs on, or was denied. The click answers the worker at once and this is shown on
        the next tick, so the worker may already have moved the card on (running, finished): it stays so."""
        card = self.cards.get(call_id)
        if card is not None and card.status == "asking":
            self._card_set(call_id, status=status)

    def tick(self) -> None:
        """Called by the UI loop between events: flush text that waited for the coalescing interval, and
        count a retry wait down."""
        if self._open is not None and self._open.text != self._open.shown:
            self._flush(force=False)
        self._countdown.tick()

    # -- streamed text ----------------------------------------------------------------------------------
    def _text(self, text: str) -> None:
        if self._open is not None and self._open.thinking:
            self._close_text()
        if self.publisher.stream_text(text):
            return
        if self._open is None:
            waiting, self._waiting = self._waiting, None  # the first text goes where "thinking…" was
            self._open = _TextBlock(display_id=waiting or self.publisher.show(answer_bundle("")))
            self._blocks.append(self._open)
        self._open.text += text
        self._flush(force=False)

    def _thinking(self, text: str) -> None:
        """Thinking goes into its own collapsed block (not one of `_blocks`: quiet mode has nothing to fold)."""
        if self._open is not None and not self._open.thinking:
            self._close_text()
        if self._open is None:
            self._open = _TextBlock(display_id=self.publisher.show(thinking_bundle("")), thinking=True)
        self._open.text += text
        self._flush(force=False)

    def _flush(self, *, force: bool) -> None:
        block = self._open
        if block is None or block.text == block.shown:
            return
        now = time.monotonic()
        if not force and now - self._last_update < MIN_UPDATE_INTERVAL:
            return
        self._last_update = now
        block.shown = block.text
        self.updates += 1
        self.publisher.update(block.display_id, block.bundle(), final=force)

    def _close_text(self) -> None:
        block = self._open
        if block is not None:
            if block.thinking and block.text == block.shown:  # a terminal prints only a final update
                self.publisher.update(block.display_id, block.bundle(), final=True)
            self._flush(force=True)
            self._open = None

    # -- cards ------------------------------------------------------------------------------------------
    def _card_new(self, card: ToolCard) -> None:
        display_id = self.publisher.show(card_bundle(card))  # an Interrupt here leaves no half-made card
        self._card_ids[card.call_id] = display_id
        self.cards[card.call_id] = card

    def _card_writing(self, writing: ev.ToolWriting) -> None:
        """The card of a call the model is writing: opened at once, its code view grown with whole lines (a
        line is shown once complete: no half of a word, nor of a secret the mask would not yet know)."""
        card = self.cards.get(writing.call_id)
        if card is None:
            self._close_text()
            card = ToolCard(
                call_id=writing.call_id, name=writing.name, input={}, kind=writing.kind, collapsed=self.quiet
            )
            card.status = "writing"
            self._card_new(card)
            return
        text = writing.text or ""
        lines = text[: text.rfind("\n") + 1]  # cut-ok: the whole lines so far
        if card.status != "writing" or lines == (card.writing or ""):
            return
        card.writing = lines
        self.publisher.update(self._card_ids[card.call_id], card_bundle(card))

    def _card_written(self, call_id: str, tool_input: object) -> None:
        """The call is complete: its card, opened while it was written, now shows it as any card does."""
        card = self.cards[call_id]
        card.input, card.writing, card.status = tool_input, None, "pending"
        self.publisher.update(self._card_ids[call_id], card_bundle(card))

    def _card_set(self, call_id: str, *, status: Status, title: str = "") -> None:
        card = self.cards.get(call_id)
        if card is None:
            return
        card.status = status
        if title:
            card.title = title
        self.publisher.update(self._card_ids[call_id], card_bundle(card))

    def card_display(self, call_id: str) -> tuple[ToolCard | None, str | None]:
        """A top-level call's card and the id of its display (None, None when it has none)."""
        return self.cards.get(call_id), self._card_ids.get(call_id)

    def _card_progress(self, call_id: str, progress: str) -> None:
        card = self.cards.get(call_id)
        if card is None or card.progress == progress:
            return
        card.progress = progress
        self.publisher.update(self._card_ids[call_id], card_bundle(card))

    def _finish_card(self, done: ev.ToolFinished) -> None:
        card = self.cards.get(done.call_id)
        if card is None:
            card = ToolCard(call_id=done.call_id, name=done.name, input={}, collapsed=self.quiet)
            self._card_new(card)
        card.kind = done.kind
        card.title = done.title or card.title
        card.result = done.result
        card.duration = done.duration
        card.status = finished_status(done)
        self.publisher.update(self._card_ids[done.call_id], card_bundle(card), final=True)
        self._not_in_notebook(done)

    def _not_in_notebook(self, done: ev.ToolFinished) -> None:
        """What a notebook tool could not put into the notebook: a proposal, a cell's outputs (under the card)."""
        data = done.result.data
        proposal, outputs = data.get(PROPOSAL_KEY), data.get(CELL_OUTPUTS_KEY)
        if is_object(proposal) and not done.result.is_error:
            self.publisher.show(proposal_bundle(proposal, done.result.diff), final=True)
            offer(proposal)
        for shown in outputs if is_array(outputs) else [outputs]:  # RunCell with cell_ids: one per cell
            if is_object(shown) and is_array(shown.get("outputs")):
                cells = [o for o in shown["outputs"] if is_object(o)]
                why = str(shown.get("why", ""))
                self.publisher.show(outputs_bundle(str(shown.get("cell_id", "")), cells, why), final=True)

    # -- the checklist and nested sub-agent calls --------------------------------------------------------
    def _todos_finished(self, done: ev.ToolFinished) -> None:
        """A valid list updates the one checklist in place; a refused call shows as a card, with its error."""
        todos = done.result.data.get("todos")
        if done.result.is_error or not is_array(todos):
            self._finish_card(done)
            return
        self._close_text()
        bundle = checklist_bundle(todos)
        if self._checklist_id is None:
            self._checklist_id = self.publisher.show(bundle)
        else:
            self.publisher.update(self._checklist_id, bundle)

    def _child_started(self, started: ev.ToolStarted) -> None:
        parent = self.cards.get(started.parent_id)
        if parent is None:
            return
        self._parents[started.call_id] = started.parent_id
        parent.children.append(
            ToolCard(call_id=started.call_id, name=started.name, input=started.input, kind=started.kind)
        )
        self.publisher.update(self._card_ids[parent.call_id], card_bundle(parent))

    def _child_update(
        self, parent_id: str, call_id: str, *, status: Status, done: ev.ToolFinished | None = None
    ) -> None:
        parent = self.cards.get(parent_id)
        child = next((c for c in parent.children if c.call_id == call_id), None) if parent else None
        if parent is None or child is None:
            return
        child.status = status
        if done is not None:
            child.title, child.result, child.duration = done.title or child.title, done.result, done.duration
        self.publisher.update(self._card_ids[parent.call_id], card_bundle(parent))

    def _child_finished(self, done: ev.ToolFinished) -> None:
        self._child_update(done.parent_id, done.call_id, status=finished_status(done), done=done)
        self._not_in_notebook(done)

    # -- notes and footer -------------------------------------------------------------------------------
    def _note(self, message: str, *, warn: bool, error: bool = False, icon: str = "") -> None:
        color = legible("error") if error else legible("warn") if warn else "inherit"
        icon = icon or ("⛔" if error else "⚠️" if warn else "ℹ️")
        bundle = {
            "text/plain": f"{icon} {message}",
            "text/html": f'<div style="color:{color};font-size:12px;margin:3px 0;">{icon} {esc(message)}</div>',
        }
        self.publisher.show(bundle, final=True)

    def _footer(self, done: ev.RunFinished) -> None:
        if self.quiet:
            self._collapse_intermediate_text()
        if not done.answered and done.reason == "error":
            return  # the error line says it all: no turns and no cost for a run that never reached the model
        u = done.usage
        reason = "" if done.reason in ("end_turn", "interrupted") else f" · stopped: {done.reason}"
        searches = (
            f" · {u.web_searches} web search{'es' if u.web_searches != 1 else ''}" if u.web_searches else ""
        )
        if offline_demo():
            cost = OFFLINE_DEMO
        elif not done.priced:
            cost = "cost n/a"
        else:
            cost = f"${done.cost_usd:.4f} (session ${done.session_cost_usd:.4f})"
        text = (
            f"{done.turns} turn{'s' if done.turns != 1 else ''} · {u.input:,} in / {u.output:,} out tokens"
            f" · cache {u.cache_read:,} read / {u.cache_write:,} written ({u.cache_read_share:.0%} read)"
            f"{searches} · {cost} · {done.duration:.1f}s{reason}"
        )
        bundle = {
            "text/plain": text,
            # Two dollar amounts would be typeset as LaTeX by the frontend's MathJax; these classes opt out.
            "text/html": f'<div class="jp-agent-footer {NO_MATH}" style="font-size:11px;color:{MUTED};'
            f'margin-top:4px;">{esc(text)}</div>',
        }
        self.publisher.show(bundle, final=True)

    def _collapse_intermediate_text(self) -> None:
        for block in self._blocks[:-1]:
            text = block.text  # the summary's `clip` and the Markdown mask before they cut or split it
            html = (
                f'<details><summary style="cursor:pointer;font-size:12px;color:{MUTED}">'
                f"{esc(clip(text.strip().splitlines()[0], 80, marker='') if text.strip() else '…')}</summary>"
                f"{markdown_to_html(text)}</details>"
            )
            self.publisher.update(block.display_id, {"text/plain": text, "text/html": html})


def compaction_line(done: ev.Compacted) -> str:
    """The one line a compaction shows."""
    how = "compacted" if done.automatic else "compacted on request"
    return (
        f"conversation {how}: {done.messages_before} messages (~{done.tokens_before:,} tokens) replaced by "
        f"the model's summary (~{done.tokens_after:,} tokens)"
    )


def finished_status(done: ev.ToolFinished) -> Status:
    code = done.result.error_code
    return (
        "interrupted" if code == "INTERRUPTED" else "denied" if code == "DENIED" else
        "error" if done.result.is_error else "done"
    )  # fmt: skip
