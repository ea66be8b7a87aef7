"""How a tool asks the person something other than an approval: questions with options, a plan to review.

The host provides a `UserChannel` as the context service `user` for the length of a run: widgets in the
running cell, stdin in a terminal. Without one (headless: nbclient, papermill) nobody can answer, and the
tools say so in their result instead of waiting.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, cast

from ..context import ToolContext

USER_SERVICE = "user"
#: The session's `PermissionPolicy`, so an approved plan can switch the run's mode at once.
POLICY_SERVICE = "permissions"


@dataclass(frozen=True, kw_only=True)
class Choice:
    label: str
    description: str


@dataclass(frozen=True, kw_only=True)
class Question:
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


PlanVerdict = Literal["accept_edits", "keep_asking", "keep_planning"]


@dataclass(frozen=True, kw_only=True)
class PlanReview:
    """*Approve and switch to acceptEdits* / *Approve, keep asking* / *Keep planning*, with an optional message."""

    verdict: PlanVerdict
    message: str = ""


class UserChannel(Protocol):
    """Someone who can answer while the run goes on. Methods return None when the question was abandoned."""

    async def ask(self, questions: Sequence[Question]) -> Sequence[Answer] | None: ...

    async def review_plan(self, plan: str) -> PlanReview | None: ...


def user_channel(ctx: ToolContext) -> UserChannel | None:
    return cast("UserChannel | None", ctx.service(USER_SERVICE))
