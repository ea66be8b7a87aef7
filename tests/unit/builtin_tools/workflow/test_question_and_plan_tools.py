"""AskUserQuestion and ExitPlanMode: the answer comes back as the result; an approved plan switches the mode."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from dispatch_harness import ToolHarness
from shown_kit import assert_no_part_of, watching

from jupyter_agent.base.result import ToolResult
from jupyter_agent.builtin_tools.workflow import (
    Answer,
    AskUserQuestion,
    ChoiceQuestion,
    ExitPlanMode,
    PlanApproval,
    PlanReview,
    UserQuestions,
)
from jupyter_agent.permissions.policy import Mode
from jupyter_agent.tools import PermissionPolicy
from jupyter_agent.tools.question import Question
from jupyter_agent.ui.channel import PendingQuestion
from jupyter_agent.ui.choices import WidgetChoices
from jupyter_agent.ui.plan_review import WidgetPlanReview

QUESTIONS: list[dict[str, Any]] = [
    {
        "question": "Which rows should the loader drop?",
        "header": "Rows",
        "options": [
            {"label": "Empty rows", "description": "rows where every value is missing"},
            {"label": "Duplicates", "description": "exact repeats of an earlier row"},
        ],
        "multiSelect": True,
    },
    {
        "question": "Where should the result go?",
        "header": "Output",
        "options": [
            {"label": "New cell", "description": "below this one"},
            {"label": "CSV file", "description": "next to the notebook"},
        ],
    },
]


@dataclass
class Person:
    """Answers like someone at the widgets would, and remembers what they were shown."""

    answers: Sequence[Answer] | None = None
    review: PlanReview | None = None
    asked: list[tuple[ChoiceQuestion, ...]] = field(default_factory=list[tuple[ChoiceQuestion, ...]])
    plans: list[str] = field(default_factory=list[str])
    cards: list[str] = field(default_factory=list[str])

    async def ask(self, request: Question[Any]) -> Any:
        self.cards.append(request.tool_use_id)
        if isinstance(request, UserQuestions):
            self.asked.append(request.questions)
            return None if self.answers is None else tuple(self.answers)
        assert isinstance(request, PlanApproval)
        self.plans.append(request.plan)
        return self.review


def _dispatch(
    tmp_path: Path, name: str, tool_input: dict[str, Any], *, person: Person | None, mode: Mode = "default"
) -> tuple[ToolResult, PermissionPolicy]:
    # The harness's approver refuses: these tools must not need it.
    tools = ToolHarness(tmp_path, [AskUserQuestion(), ExitPlanMode()], mode=mode, asker=person)
    return tools.call(name, tool_input, call_id="t1"), tools.policy


def test_the_answers_go_back_as_the_result_including_other_text(tmp_path: Path) -> None:
    person = Person(
        answers=[
            Answer(question="Which rows should the loader drop?", picked=("Empty rows", "Duplicates")),
            Answer(question="Where should the result go?", other="a parquet file"),
        ]
    )
    result, _ = _dispatch(tmp_path, "AskUserQuestion", {"questions": QUESTIONS}, person=person, mode="plan")
    assert not result.is_error, result.content
    assert result.content == (
        'The user answered your questions: "Which rows should the loader drop?"="Empty rows, Duplicates", '
        '"Where should the result go?"="a parquet file". Continue with these answers in mind.'
    )
    (shown,) = person.asked
    assert person.cards == ["t1"]  # the asking call's card is marked as waiting
    assert [q.header for q in shown] == ["Rows", "Output"]
    assert [q.multi_select for q in shown] == [True, False]
    assert [o.label for o in shown[1].options] == ["New cell", "CSV file"]


def test_without_anyone_to_answer_the_model_is_told_to_decide_and_say_what_it_assumed(tmp_path: Path) -> None:
    result, _ = _dispatch(tmp_path, "AskUserQuestion", {"questions": QUESTIONS}, person=None)
    assert not result.is_error
    assert result.content.startswith("No one can answer questions in this session")
    assert "say in your answer what you assumed" in result.content
    assert result.content.endswith("Which rows should the loader drop?; Where should the result go?")


def test_question_limits_are_validated_before_anyone_is_asked(tmp_path: Path) -> None:
    person = Person()
    one_option = [{**QUESTIONS[0], "options": QUESTIONS[0]["options"][:1]}]
    long_header = [{**QUESTIONS[0], "header": "A much too long header"}]
    five = [{**QUESTIONS[1], "question": f"Q{i}?"} for i in range(5)]
    twice = [QUESTIONS[1], QUESTIONS[1]]
    for bad, pointer in [
        (one_option, "/questions/0/options"),
        (long_header, "/questions/0/header"),
        (five, "/questions"),
        (twice, "/questions/1/question"),
    ]:
        result, _ = _dispatch(tmp_path, "AskUserQuestion", {"questions": bad}, person=person)
        assert result.error_code == "INVALID_ARGS", bad
        assert pointer in result.content
    assert person.asked == []


def test_approving_the_plan_switches_the_mode_at_once(tmp_path: Path) -> None:
    person = Person(review=PlanReview(verdict="accept_edits", message="skip the tests"))
    result, policy = _dispatch(
        tmp_path, "ExitPlanMode", {"plan": "1. fix\n2. test"}, person=person, mode="plan"
    )
    assert person.plans == ["1. fix\n2. test"]
    assert policy.mode == "acceptEdits"
    assert result.content == (
        "The user approved your plan. The mode is now acceptEdits: edits of files and cells run without asking; "
        'running code (RunCode, RunCell, Bash) asks the user first. The user added: "skip the tests" Carry out the '
        "plan now."
    )
    keep_asking, policy = _dispatch(
        tmp_path,
        "ExitPlanMode",
        {"plan": "p"},
        person=Person(review=PlanReview(verdict="keep_asking")),
        mode="plan",
    )
    assert policy.mode == "default" and "mode is now default" in keep_asking.content


def test_keep_planning_leaves_plan_mode_and_passes_the_feedback(tmp_path: Path) -> None:
    person = Person(review=PlanReview(verdict="keep_planning", message="also handle March"))
    result, policy = _dispatch(tmp_path, "ExitPlanMode", {"plan": "p"}, person=person, mode="plan")
    assert policy.mode == "plan"
    assert result.error_code == "DENIED"
    assert 'The user added: "also handle March"' in result.content


def test_headless_refuses_with_a_hint_and_the_mode_stays_plan(tmp_path: Path) -> None:
    result, policy = _dispatch(tmp_path, "ExitPlanMode", {"plan": "p"}, person=None, mode="plan")
    assert policy.mode == "plan"
    assert result.error_code == "DENIED"
    assert "%agent mode acceptEdits" in result.content


def test_outside_plan_mode_there_is_nothing_to_exit(tmp_path: Path) -> None:
    person = Person(review=PlanReview(verdict="accept_edits"))
    result, policy = _dispatch(tmp_path, "ExitPlanMode", {"plan": "p"}, person=person, mode="default")
    assert result.error_code == "NOT_AVAILABLE"
    assert policy.mode == "default" and person.plans == []


def test_the_definitions_the_model_sees_are_pinned() -> None:
    assert ExitPlanMode().to_param()["input_schema"] == {
        "additionalProperties": False,
        "properties": {
            "plan": {
                "description": "The plan to approve, in Markdown: short, concrete steps.",
                "minLength": 1,
                "type": "string",
            }
        },
        "required": ["plan"],
        "type": "object",
    }
    schema = AskUserQuestion().to_param()["input_schema"]
    assert schema["properties"] == {
        "questions": {
            "description": "1–4 questions to ask together.",
            "items": {"$ref": "#/$defs/QuestionInput"},
            "maxItems": 4,
            "minItems": 1,
            "type": "array",
        }
    }
    assert schema["$defs"]["QuestionInput"] == {
        "additionalProperties": False,
        "properties": {
            "question": {
                "description": "The full question, ending with a question mark.",
                "minLength": 1,
                "type": "string",
            },
            "header": {
                "description": 'A very short label for the question (at most 12 characters), e.g. "Method".',
                "maxLength": 12,
                "minLength": 1,
                "type": "string",
            },
            "options": {
                "description": '2–4 distinct choices; "Other" (free text) is added for the user, do not include it.',
                "items": {"$ref": "#/$defs/OptionInput"},
                "maxItems": 4,
                "minItems": 2,
                "type": "array",
            },
            "multiSelect": {
                "default": False,
                "description": "Let the user pick several options.",
                "type": "boolean",
            },
        },
        "required": ["question", "header", "options"],
        "type": "object",
    }
    assert schema["$defs"]["OptionInput"]["required"] == ["label", "description"]


def test_a_secret_in_a_question_an_option_or_a_plan_never_reaches_the_widgets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-ant-api03-Pq7Wn3Lm8Xv2Rt5Ky9Bd"
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    questions = [
        {
            "question": f"Use {key}?",
            "header": key[13:25],
            "multiSelect": False,
            "options": [
                {"label": key[5:30], "description": f"the key reversed: {key[::-1]}"},
                {"label": "No", "description": "leave it"},
            ],
        }
    ]
    person = Person(answers=[Answer(question="?", picked=("No",))])
    _dispatch(tmp_path, "AskUserQuestion", {"questions": questions}, person=person, mode="plan")
    plans = Person(review=PlanReview(verdict="keep_planning"))
    _dispatch(tmp_path, "ExitPlanMode", {"plan": f"1. export KEY={key}"}, person=plans, mode="plan")
    with watching(tmp_path, monkeypatch) as shown:  # the widgets the person would be shown for these requests
        asked = UserQuestions(questions=person.asked[0])
        WidgetChoices(ask=PendingQuestion(request=asked, reply=concurrent.futures.Future())).show()
        plan = PlanApproval(plan=plans.plans[0])
        WidgetPlanReview(ask=PendingQuestion(request=plan, reply=concurrent.futures.Future())).show()
    everything = shown.text()
    assert "[redacted: ANTHROPIC_API_KEY]" in everything
    assert_no_part_of(key[13:], everything)  # after the `sk-ant-api03-` every key shares
