"""Enter in a card's text field answers, as the button next to it would; typing, or leaving the field, does not.

The field's view in the page sends a comm message `{"method": "custom", "content": {"event": "submit"}}` on
Enter, and `{"method": "update", "state": {"value": …}}` as the user types or when the field loses focus: the
tests send those messages to the kernel-side widget, as the page does.
"""

from __future__ import annotations

import concurrent.futures
import warnings
from typing import Any

from IPython.utils.capture import capture_output
from test_approval_card import plain_request, widget

from jupyter_agent.builtin_tools.workflow.asking import Answer, Choice, ChoiceQuestion, UserQuestions
from jupyter_agent.tools.dispatch import Reject
from jupyter_agent.ui.approval import WidgetApproval
from jupyter_agent.ui.channel import PendingQuestion
from jupyter_agent.ui.choices import OTHER_PLACEHOLDER, WidgetChoices


def page_sends(field: Any, data: dict[str, Any]) -> None:
    field._handle_msg({"content": {"data": data}, "buffers": []})


def typed(field: Any, text: str) -> None:
    page_sends(field, {"method": "update", "state": {"value": text}, "buffer_paths": []})


def pressed_enter(field: Any) -> None:
    page_sends(field, {"method": "custom", "content": {"event": "submit"}})


def test_enter_in_the_approval_message_denies_with_the_typed_text() -> None:
    card = WidgetApproval(ask=PendingQuestion(request=plain_request(), reply=concurrent.futures.Future()))
    with capture_output():
        card.show()
    field = widget(card, "Text")
    typed(field, "  use --dry-run first ")
    assert not card.ask.reply.done()  # typing (or leaving the field) is no answer
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no deprecated ipywidgets call on the way
        pressed_enter(field)
    assert card.ask.reply.result() == Reject(message="use --dry-run first")


def test_enter_in_a_questions_other_field_sends_the_answers() -> None:
    question = ChoiceQuestion(
        question="Where?",
        header="Out",
        options=(Choice(label="CSV", description="a file"), Choice(label="Cell", description="below")),
        multi_select=False,
    )
    card = WidgetChoices(
        ask=PendingQuestion(request=UserQuestions(questions=(question,)), reply=concurrent.futures.Future())
    )
    with capture_output():
        card.show()
    (other,) = [w for w in card.widgets if getattr(w, "placeholder", None) == OTHER_PLACEHOLDER]
    typed(other, "as parquet")
    assert not card.ask.reply.done()
    pressed_enter(other)
    assert card.ask.reply.result() == (Answer(question="Where?", other="as parquet"),)
