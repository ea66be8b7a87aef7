"""Terminal IPython: AskUserQuestion and ExitPlanMode asked on stdin; numbers pick options, text is "Other"."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from jupyter_agent.builtin_tools.workflow import (
    Answer,
    Choice,
    ChoiceQuestion,
    PlanApproval,
    PlanReview,
    UserQuestions,
)
from jupyter_agent.ui.choices import answers_record, ask_choices_on_stdin
from jupyter_agent.ui.plan_review import review_on_stdin, review_record


def typed(*replies: str) -> Callable[[str], str]:
    answers: Iterator[str] = iter(replies)
    return lambda _prompt: next(answers)


def _question(text: str, *, multi: bool) -> ChoiceQuestion:
    options = (Choice(label="CSV", description="a file"), Choice(label="Cell", description="below"))
    return ChoiceQuestion(question=text, header="Out", options=options, multi_select=multi)


def test_numbers_pick_options_and_anything_else_is_the_other_answer(
    capsys: pytest.CaptureFixture[str],
) -> None:
    request = UserQuestions(
        questions=(
            _question("Where?", multi=False),
            _question("Which?", multi=True),
            _question("How?", multi=False),
        )
    )
    answers = ask_choices_on_stdin(request, typed("2", "1, 2", "as parquet"))
    assert answers == (
        Answer(question="Where?", picked=("Cell",)),
        Answer(question="Which?", picked=("CSV", "Cell")),
        Answer(question="How?", other="as parquet"),
    )
    assert "  1. CSV — a file" in capsys.readouterr().out
    assert answers_record(answers) == "💬 Where? → Cell · Which? → CSV, Cell · How? → as parquet"


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("a", PlanReview(verdict="accept_edits")),
        ("k", PlanReview(verdict="keep_asking")),
        ("p", PlanReview(verdict="keep_planning")),
        ("also handle March", PlanReview(verdict="keep_planning", message="also handle March")),
    ],
)
def test_the_plan_is_approved_or_sent_back_on_stdin(reply: str, expected: PlanReview) -> None:
    assert review_on_stdin(PlanApproval(plan="1. fix"), typed(reply)) == expected


def test_the_plan_records_say_what_was_decided() -> None:
    assert review_record(PlanReview(verdict="accept_edits")) == "✅ plan approved: mode acceptEdits"
    assert review_record(PlanReview(verdict="keep_planning", message="why?")) == "📝 keep planning — “why?”"
    assert review_record(None) == "⏹ plan: no answer"
