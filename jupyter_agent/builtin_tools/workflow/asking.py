"""What AskUserQuestion and ExitPlanMode ask the person: typed questions the UI answers during the run.

Each is a `Question[A]` (tools/question.py); the host puts its UI channel in the context as the `questions`
service, and the UI shows each kind as widgets in the running cell, on stdin in a terminal, or answers
None when no one can answer (nbclient, papermill) — then the tools say so in their result instead of
waiting.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeVar

from ...tools.context import Asker as Asker
from ...tools.context import ToolContext
from ...tools.question import Question

A = TypeVar("A")


@dataclass(frozen=True, kw_only=True)
class Choice:
    label: str
    description: str


@dataclass(frozen=True, kw_only=True)
class ChoiceQuestion:
    question: str
    header: str
    options: tuple[Choice, ...]
    multi_select: bool


@dataclass(frozen=True, kw_only=True)
class Answer:
    """The labels picked (several when multiSelect) and the "Other" text, if the person typed one."""

    question: str
    picked: tuple[str, ...] = ()
    other: str = ""

    def text(self) -> str:
        parts = [*self.picked, *([self.other] if self.other else [])]
        return ", ".join(parts) if parts else "(no answer)"


Answers = tuple[Answer, ...]


@dataclass(frozen=True, kw_only=True)
class UserQuestions(Question["Answers | None"]):
    """AskUserQuestion's questions; None: no one can answer."""

    questions: tuple[ChoiceQuestion, ...] = ()


PlanVerdict = Literal["accept_edits", "keep_asking", "keep_planning"]


@dataclass(frozen=True, kw_only=True)
class PlanReview:
    """*Approve and switch to acceptEdits* / *Approve, keep asking* / *Keep planning*, with an optional message."""

    verdict: PlanVerdict
    message: str = ""


@dataclass(frozen=True, kw_only=True)
class PlanApproval(Question["PlanReview | None"]):
    """ExitPlanMode's plan (Markdown); None: no one can approve it."""

    plan: str = ""


async def ask_user(ctx: ToolContext, request: Question[A]) -> A | None:
    """The person's answer, or None when this session has no one to ask."""
    asker = ctx.services.questions
    if asker is None:
        return None
    return await asker.ask(request)
