"""How a question from the worker is put to the person: widgets in the cell, stdin, or no one (headless).

Each kind of `Question` has a `QuestionUI` (registered in `ui.presenter.QUESTION_UIS`); the presenter
picks the channel — widgets when a frontend answers, stdin in terminal IPython, `unanswered` otherwise.
A widget question is a `WidgetQuestion` subclass: it builds its widgets, and a click answers the worker
at once (clicks arrive through the pump while the cell is busy); the UI loop's next tick collapses the
widgets into a one-line record, when output goes to the running cell again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from ..tools.question import Question
from .cards import Status
from .channel import PendingQuestion
from .gate import show_widget, update_bundle
from .html import esc
from .widget_tree import close_tree

A = TypeVar("A")


class QuestionUI(Protocol[A]):
    """The ways one kind of question can be answered."""

    def widget(self, ask: PendingQuestion[A]) -> WidgetQuestion[A]:
        """The in-cell widgets for `ask` (not yet shown)."""
        ...

    def on_stdin(self, request: Question[A]) -> A:
        """Terminal IPython: ask on stdin."""
        ...

    def unanswered(self, request: Question[A], why: str) -> A:
        """The answer when no one can answer; `why` says why (a headless client, a closed browser, an
        ipykernel whose internals the in-cell wait cannot use)."""
        ...

    def card_status(self, answer: A | None) -> Status:
        """The asking tool's card once answered (None: the worker gave up waiting)."""
        ...


@dataclass
class WidgetQuestion(Generic[A]):
    """One pending question as ipywidgets; subclasses build the widgets and word the record."""

    ask: PendingQuestion[A]
    display_id: str = ""
    answered: bool = False
    #: Set by a click; shown by `settle()` on the UI loop's next tick (a click is handled with the comm
    #: message as the parent, so output then would not go to the running cell).
    record: str | None = None
    #: The widgets a subclass made, for a look at them; closing goes by the box (`root`) and all it holds.
    widgets: list[Any] = field(default_factory=list[Any])
    root: Any = None
    collapsed: bool = False

    def build(self) -> Any:
        """The box to display, holding every widget made for it (closed with it, layouts and styles included)."""
        raise NotImplementedError

    def record_text(self, answer: A | None) -> str:
        """The one line that replaces the widgets (None: interrupted before an answer)."""
        raise NotImplementedError

    def show(self) -> None:
        self.root = self.build()
        # What a saved notebook shows once the widget is gone: nothing waits any more (the kernel stopped).
        self.display_id = show_widget(self.root, text=self.record_text(None))

    def answer(self, answer: A) -> None:
        """A click: answer the worker now, collapse on the next tick."""
        if self.answered:
            return
        self.answered = True
        self.ask.answer(answer)
        self.record = self.record_text(answer)

    @property
    def outcome(self) -> A | None:
        reply = self.ask.reply
        return reply.result() if reply.done() and not reply.cancelled() else None

    def settle(self) -> bool:
        """On the UI thread's tick: show the decision (or an abandoned question) as one line. True when done."""
        if not self.answered and self.ask.reply.cancelled():
            self.answered = True
            self.record = self.record_text(None)
        if self.record is None:
            return False
        self._collapse(self.record)
        return True

    def close(self) -> None:
        """The run is over: a question still shown becomes its one-line record (no answer, if none came)."""
        if self.collapsed:
            return
        if self.record is None:
            reply = self.ask.reply
            failed = reply.done() and not reply.cancelled() and reply.exception() is not None
            self.record = self.record_text(None if failed else self.outcome)
        self._collapse(self.record)

    def _collapse(self, text: str) -> None:
        self.collapsed = True
        bundle = {
            "text/plain": text,
            "text/html": f'<div style="font-size:12px;margin:2px 0;">{esc(text)}</div>',
        }
        update_bundle(bundle, display_id=self.display_id)
        close_tree(self.root, *self.widgets)
