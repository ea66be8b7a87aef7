"""What the `%agent serve` cell shows: the server's state and a live list of the outside calls, one card each
(the agent's own cards, `ui/cards.py`), with an approval above its card while it waits for an answer.

The cell has ended by the time calls come, so nothing is displayed after it: the board is one box of widgets
the cell displayed, and a call adds or changes the widgets in it (a widget's state reaches the page whether or
not a cell runs). Every widget is built from `ui/gate.py`'s `widgets()`, so its text is masked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..agent.events import AgentEvent
from ..tools.dispatch import ApprovalRequest
from ..ui.approval import NO_WIDGET_FRONTEND, WidgetApproval, headless_refusal, offer_at_cells
from ..ui.at_cell import CellPages, CellQuestion, outcome_of
from ..ui.cards import Status, ToolCard
from ..ui.channel import PendingQuestion
from ..ui.gate import show_widget, widgets
from ..ui.html import MUTED, esc
from ..ui.widget_tree import close_tree

#: Cards kept on the board; older calls leave it (they stay in `%agent review`).
MAX_CARDS = 50


@dataclass
class _Shown:
    card: ToolCard
    widget: Any
    client: str


@dataclass
class ServeBoard:
    """The serve cell's box: a header line, then the calls, newest last."""

    header: str
    box: Any = None
    _head: Any = None
    _shown: list[_Shown] = field(default_factory=list[_Shown])

    def show(self) -> None:
        w = widgets()
        self._head = w.HTML(value=self._header_html(0))
        self.box = w.VBox([self._head])
        show_widget(self.box, text=self.header)

    def _header_html(self, calls: int) -> str:
        return f'<div style="font-size:12px;">{esc(self.header)} · {calls} outside call{"s" if calls != 1 else ""}</div>'

    def started(self, card: ToolCard, client: str) -> _Shown:
        w = widgets()
        shown = _Shown(card=card, widget=w.HTML(value=_card_html(card, client)), client=client)
        self._shown.append(shown)
        old = self._shown[:-MAX_CARDS]
        self._shown = self._shown[-MAX_CARDS:]
        for gone in old:
            close_tree(gone.widget)
        self._redraw()
        return shown

    def changed(self, shown: _Shown) -> None:
        shown.widget.value = _card_html(shown.card, shown.client)

    def ask_above(self, shown: _Shown, question: Any | None) -> None:
        """The approval's widgets above the card of the call they are about (None: the question is gone)."""
        children = [self._head]
        for each in self._shown:
            if each is shown and question is not None:
                children.append(question)
            children.append(each.widget)
        self.box.children = children

    def _redraw(self) -> None:
        self._head.value = self._header_html(len(self._shown))
        self.box.children = [self._head, *(each.widget for each in self._shown)]

    def stopped(self, line: str) -> None:
        self.header = line
        self._redraw()

    def close(self) -> None:
        if self.box is not None:
            close_tree(self.box)


def _card_html(card: ToolCard, client: str) -> str:
    return f'<div style="font-size:11px;color:{MUTED};">from {esc(client)}</div>{card.html()}'


@dataclass
class CallPresenter:
    """`ui/mainloop.py`'s presenter for one outside call: its approval goes on the board — and, when it is about
    cells of the live notebook, at those cells in the page, as the agent's own (`ui/at_cell.py`) — or is
    refused with why when no one can answer (a headless client, no page listening)."""

    board: ServeBoard
    shown: _Shown
    #: Why no one can answer, known before asking (None: probe the page at the first question).
    no_answer: str | None
    probe: Any = None
    #: The pages that draw an approval at its cells (the agent's, `host/pending_page.py`; None: nowhere).
    at_cells: CellPages | None = None
    _pending: list[tuple[WidgetApproval, CellQuestion | None]] = field(
        default_factory=list[tuple[WidgetApproval, CellQuestion | None]]
    )

    def on_event(self, event: AgentEvent) -> None:
        pass  # the Dispatcher emits none; the card follows the call itself

    def on_question(self, ask: PendingQuestion[Any]) -> None:
        request = ask.request
        if not isinstance(request, ApprovalRequest):
            ask.reply.set_exception(LookupError(f"an outside call cannot ask a {type(request).__name__}"))
            return
        why = self.no_answer or self._probe()
        if why is not None:
            ask.answer(headless_refusal(request, why))
            return
        self._set_status("asking")
        question = WidgetApproval(ask=ask)
        at_cell = offer_at_cells(self.at_cells, request, question)
        question.root = question.build()
        self.board.ask_above(self.shown, question.root)
        self._pending.append((question, at_cell))

    def _probe(self) -> str | None:
        if self.probe is None:
            return NO_WIDGET_FRONTEND
        return None if self.probe() else NO_WIDGET_FRONTEND

    def on_tick(self) -> None:
        still: list[tuple[WidgetApproval, CellQuestion | None]] = []
        for question, at_cell in self._pending:
            if not question.answered and question.ask.reply.cancelled():
                question.answered = True
                question.record = question.record_text(None)
            if question.record is None:
                still.append((question, at_cell))
                continue
            close_tree(question.root, *question.widgets)
            self.board.ask_above(self.shown, None)
            if at_cell is not None:  # answered on the board or at the cell: both places close
                at_cell.close(outcome_of(question.outcome), question.record)
            self._set_status("running" if _approved(question) else "denied")
        self._pending = still

    def _set_status(self, status: Status) -> None:
        self.shown.card.status = status
        self.board.changed(self.shown)

    def close(self) -> None:
        for question, at_cell in self._pending:
            close_tree(question.root, *question.widgets)
            if at_cell is not None:  # the page takes the marks away too
                at_cell.close("interrupted", "")
        self._pending = []


def _approved(question: WidgetApproval) -> bool:
    from ..tools.dispatch import Approve

    return isinstance(question.outcome, Approve)
