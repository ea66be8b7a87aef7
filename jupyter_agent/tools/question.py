"""A typed question the agent's worker thread puts to the person, answered on the UI thread.

`Question[A]` names its answer type, so `UIChannel.ask(request)` returns an `A` and pyright checks both
ends. Tool approvals are the first kind (`ApprovalRequest` → `Approval`); a tool that asks something else
(a choice, a plan to approve) declares its own request class and registers how the UI shows it
(`jupyter_agent.ui.questions.register`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

A = TypeVar("A")


@dataclass(frozen=True, kw_only=True)
class Question(Generic[A]):
    """Base of every question; `A` is the type of its answer."""

    #: The tool call asking, so the UI can mark its card as waiting (empty when no call is involved).
    tool_use_id: str = ""
    #: One line naming what is asked about, for that card while it waits.
    title: str = ""
