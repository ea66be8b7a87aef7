"""AskUserQuestion: ask the person 1–4 multiple-choice questions in the middle of a run, answers as the result."""

from __future__ import annotations

from pydantic import Field

from ...base.result import Issue, ToolResult
from ...tools.context import ToolContext
from ...tools.core import READ_ONLY, Tool, ToolInput
from .asking import Answer, Choice, ChoiceQuestion, UserQuestions, ask_user

DESCRIPTION = """\
Ask the user questions while you work, when a decision is theirs to make: an ambiguous instruction, a \
choice between approaches, a preference. Each question has 2–4 options; the user can always answer \
"Other" with their own text instead. Use multiSelect when several options can apply together. Do not ask \
what you can find out yourself by reading the notebook, the files or the data. If no one can answer, the \
result says so: then decide yourself and say what you assumed."""

_NOBODY = (
    "No one can answer questions in this session (it runs without a person at the notebook, e.g. nbclient or "
    "papermill). Decide yourself: pick the most reasonable option for each question, carry on, and say in your "
    "answer what you assumed: "
)


class OptionInput(ToolInput):
    label: str = Field(min_length=1)
    """The choice as the user sees it on its button: 1–5 words."""
    description: str
    """What this choice means or implies."""


class QuestionInput(ToolInput):
    question: str = Field(min_length=1)
    """The full question, ending with a question mark."""
    header: str = Field(min_length=1, max_length=12)
    """A very short label for the question (at most 12 characters), e.g. "Method"."""
    options: list[OptionInput] = Field(min_length=2, max_length=4)
    """2–4 distinct choices; "Other" (free text) is added for the user, do not include it."""
    multiSelect: bool = False
    """Let the user pick several options."""


class AskUserQuestionInput(ToolInput):
    questions: list[QuestionInput] = Field(min_length=1, max_length=4)
    """1–4 questions to ask together."""


def _duplicates(params: AskUserQuestionInput) -> tuple[Issue, ...]:
    issues: list[Issue] = []
    seen: set[str] = set()
    for i, q in enumerate(params.questions):
        if q.question in seen:
            issues.append(Issue(path=f"/questions/{i}/question", message="the same question twice"))
        seen.add(q.question)
        labels: set[str] = set()
        for j, option in enumerate(q.options):
            if option.label in labels:
                issues.append(Issue(path=f"/questions/{i}/options/{j}/label", message="the same label twice"))
            labels.add(option.label)
    return tuple(issues)


def to_questions(params: AskUserQuestionInput) -> tuple[ChoiceQuestion, ...]:
    """The questions as the person is asked them (the UI's display gate masks what it shows)."""
    return tuple(
        ChoiceQuestion(
            question=q.question,
            header=q.header,
            options=tuple(Choice(label=o.label, description=o.description) for o in q.options),
            multi_select=q.multiSelect,
        )
        for q in params.questions
    )


def answers_text(answers: tuple[Answer, ...]) -> str:
    pairs = ", ".join(f'"{a.question}"="{a.text()}"' for a in answers)
    return f"The user answered your questions: {pairs}. Continue with these answers in mind."


class AskUserQuestion(Tool[AskUserQuestionInput]):
    name = "AskUserQuestion"
    description = DESCRIPTION
    kind = "other"
    annotations = READ_ONLY
    Input = AskUserQuestionInput

    def title(self, params: AskUserQuestionInput, ctx: ToolContext) -> str:
        return f"AskUserQuestion {' · '.join(q.header for q in params.questions)}"

    async def run(self, params: AskUserQuestionInput, ctx: ToolContext) -> ToolResult:
        issues = _duplicates(params)
        if issues:
            where = ", ".join(i.path for i in issues)
            return ToolResult.error(
                "INVALID_ARGS",
                f"questions and option labels must be distinct (repeated at {where})",
                issues=issues,
            )
        questions = to_questions(params)
        request = UserQuestions(
            tool_use_id=ctx.tool_use_id, title=self.title(params, ctx), questions=questions
        )
        answers = await ask_user(ctx, request)
        if answers is None:
            asked = "; ".join(q.question for q in questions)
            return ToolResult.ok(_NOBODY + asked, summary="no one could answer")
        answered = tuple(answers)
        return ToolResult.ok(
            answers_text(answered),
            summary="; ".join(f"{a.question} → {a.text()}" for a in answered),
            data={"answers": [{"question": a.question, "answer": a.text()} for a in answered]},
        )
