"""AskUserQuestion in the cell: a button per option, "Other" as free text, answered through the pump.

One question with a single choice is answered by the click on an option; several questions, or a question
with several choices, are answered with "Send answers". In a terminal the questions are asked on stdin; with
no one to answer (headless) the answer is None and the tool tells the model to decide for itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..builtin_tools.workflow.asking import Answer, Answers, ChoiceQuestion, UserQuestions
from ..tools.question import Question
from .cards import Status
from .channel import PendingQuestion
from .gate import say, widgets
from .html import MUTED, esc
from .jupyter_api import add_class, on_click, on_submit
from .questions import WidgetQuestion

OTHER_PLACEHOLDER = "Other: type your own answer"
SEND = "Send answers"
_PICKED = "info"


def _questions(request: Question[Answers | None]) -> UserQuestions:
    if not isinstance(request, UserQuestions):
        raise TypeError(f"ChoicesUI asked a {type(request).__name__}, not UserQuestions")
    return request


def answers_record(answers: Answers | None) -> str:
    if answers is None:
        return "⏹ questions: no answer"
    return "💬 " + " · ".join(f"{a.question} → {a.text()}" for a in answers)


class _Picker:
    """The buttons and the "Other" field of one question; `answer()` reads them."""

    def __init__(self, question: ChoiceQuestion, on_pick: Callable[[], None]) -> None:
        w = widgets()
        self.question = question
        self.picked: list[str] = []
        self.buttons = [w.Button(description=o.label, tooltip=o.description) for o in question.options]
        self.other = w.Text(placeholder=OTHER_PLACEHOLDER, layout=w.Layout(width="60%"))

        def clicked(button: Any) -> None:
            self._toggle(str(button.description), on_pick)

        for button in self.buttons:
            on_click(button, clicked)
        details = "".join(f"<li><b>{esc(o.label)}</b> — {esc(o.description)}</li>" for o in question.options)
        how = "choose one or more" if question.multi_select else "choose one"
        self.head = w.HTML(
            value=(
                f'<div><span style="font-size:11px;padding:1px 5px;border-radius:3px;'
                f'background:var(--jp-layout-color3,#ddd);">{esc(question.header)}</span> '
                f"<b>{esc(question.question)}</b> "
                f'<span style="font-size:11px;color:{MUTED};">({how})</span></div>'
                f'<ul style="margin:2px 0;font-size:12px;">{details}</ul>'
            )
        )
        self.row = w.HBox(self.buttons)
        self.box = w.VBox([self.head, self.row, self.other])

    @property
    def widgets(self) -> list[Any]:
        return [self.head, *self.buttons, self.row, self.other, self.box]

    def _toggle(self, label: str, on_pick: Callable[[], None]) -> None:
        if self.question.multi_select:
            self.picked = (
                [p for p in self.picked if p != label] if label in self.picked else [*self.picked, label]
            )
        else:
            self.picked = [label]
        for button in self.buttons:
            button.button_style = _PICKED if button.description in self.picked else ""
        on_pick()

    def answer(self) -> Answer:
        return Answer(
            question=self.question.question, picked=tuple(self.picked), other=self.other.value.strip()
        )


class WidgetChoices(WidgetQuestion[Answers | None]):
    def build(self) -> Any:
        w = widgets()
        request = _questions(self.ask.request)
        at_once = len(request.questions) == 1 and not request.questions[0].multi_select
        pickers: list[_Picker] = []

        def send(_widget: Any = None) -> None:
            self.answer(tuple(p.answer() for p in pickers))

        def picked() -> None:
            if at_once:
                send()

        pickers.extend(_Picker(q, picked) for q in request.questions)
        submit = w.Button(description=SEND, button_style="primary", icon="check")
        on_click(submit, send)
        for picker in pickers:
            on_submit(picker.other, send)
        box = w.VBox(
            [*(p.box for p in pickers), submit],
            layout=w.Layout(border="1px solid var(--jp-brand-color1,#1976d2)", padding="6px", margin="4px 0"),
        )
        add_class(box, "jp-agent-question")
        self.widgets = [*(x for p in pickers for x in p.widgets), submit, box]
        return box

    def record_text(self, answer: Answers | None) -> str:
        return answers_record(answer)


def ask_choices_on_stdin(request: UserQuestions, read: Callable[[str], str] = input) -> Answers:
    """Terminal IPython: each question with numbered options; numbers pick, anything else is "Other"."""
    answers: list[Answer] = []
    for q in request.questions:
        say(f"\n[{q.header}] {q.question}")
        for number, option in enumerate(q.options, start=1):
            say(f"  {number}. {option.label} — {option.description}")
        several = " (several: 1,3)" if q.multi_select else ""
        reply = read(f"Choose a number{several}, or type your own answer: ").strip()
        numbers = [p.strip() for p in reply.split(",")]
        if reply and all(n.isdigit() and 1 <= int(n) <= len(q.options) for n in numbers):
            picked = tuple(q.options[int(n) - 1].label for n in numbers)
            answers.append(Answer(question=q.question, picked=picked if q.multi_select else picked[:1]))
        else:
            answers.append(Answer(question=q.question, other=reply))
    return tuple(answers)


class ChoicesUI:
    """`QuestionUI` for AskUserQuestion."""

    def widget(self, ask: PendingQuestion[Answers | None]) -> WidgetQuestion[Answers | None]:
        return WidgetChoices(ask=ask)

    def on_stdin(self, request: Question[Answers | None]) -> Answers | None:
        return ask_choices_on_stdin(_questions(request))

    def unanswered(self, request: Question[Answers | None], why: str) -> Answers | None:
        return None

    def card_status(self, answer: Answers | None) -> Status:
        return "running"
