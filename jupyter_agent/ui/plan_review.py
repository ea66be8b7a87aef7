"""ExitPlanMode in the cell: the plan as Markdown and three answers — approve and switch to acceptEdits,
approve and keep asking, or keep planning — each with an optional message for the agent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..builtin_tools.workflow.asking import PlanApproval, PlanReview, PlanVerdict
from ..tools.question import Question
from .cards import Status
from .channel import PendingQuestion
from .gate import markdown_to_html, say, widgets
from .jupyter_api import add_class, on_click
from .questions import WidgetQuestion

ACCEPT_EDITS = "Approve and switch to acceptEdits"
KEEP_ASKING = "Approve, keep asking"
KEEP_PLANNING = "Keep planning"
MESSAGE_PLACEHOLDER = "Message for the agent (optional)…"
_RECORDS: dict[PlanVerdict, str] = {
    "accept_edits": "✅ plan approved: mode acceptEdits",
    "keep_asking": "✅ plan approved: mode default (changes still ask)",
    "keep_planning": "📝 keep planning",
}


def _plan(request: Question[PlanReview | None]) -> PlanApproval:
    if not isinstance(request, PlanApproval):
        raise TypeError(f"PlanReviewUI asked a {type(request).__name__}, not a PlanApproval")
    return request


def review_record(review: PlanReview | None) -> str:
    if review is None:
        return "⏹ plan: no answer"
    extra = f" — “{review.message}”" if review.message else ""
    return _RECORDS[review.verdict] + extra


class WidgetPlanReview(WidgetQuestion[PlanReview | None]):
    def build(self) -> Any:
        w = widgets()
        plan = _plan(self.ask.request).plan
        head = w.HTML(
            value=(
                '<div style="font-weight:600;">The agent’s plan — approve it to carry it out</div>'
                f'<div class="jp-agent-plan" style="border-left:3px solid var(--jp-brand-color1,#1976d2);'
                f'padding-left:8px;margin:4px 0;">{markdown_to_html(plan)}</div>'
            )
        )
        message = w.Text(placeholder=MESSAGE_PLACEHOLDER, layout=w.Layout(width="70%"))

        def choose(verdict: PlanVerdict) -> Callable[[Any], None]:
            return lambda _b: self.answer(PlanReview(verdict=verdict, message=message.value.strip()))

        accept = w.Button(description=ACCEPT_EDITS, button_style="success", layout=w.Layout(width="auto"))
        ask = w.Button(description=KEEP_ASKING, layout=w.Layout(width="auto"))
        keep = w.Button(description=KEEP_PLANNING, button_style="warning", layout=w.Layout(width="auto"))
        on_click(accept, choose("accept_edits"))
        on_click(ask, choose("keep_asking"))
        on_click(keep, choose("keep_planning"))
        buttons = w.HBox([accept, ask, keep])
        box = w.VBox(
            [head, buttons, message],
            layout=w.Layout(border="1px solid var(--jp-brand-color1,#1976d2)", padding="6px", margin="4px 0"),
        )
        add_class(box, "jp-agent-plan-review")
        self.widgets = [head, message, accept, ask, keep, buttons, box]
        return box

    def record_text(self, answer: PlanReview | None) -> str:
        return review_record(answer)


def review_on_stdin(request: PlanApproval, read: Callable[[str], str] = input) -> PlanReview:
    say(f"\nThe agent's plan:\n{request.plan}\n")
    reply = read(
        "[a]pprove and switch to acceptEdits / approve, [k]eep asking / keep [p]lanning (or type feedback): "
    ).strip()
    verdicts: dict[str, PlanVerdict] = {"a": "accept_edits", "k": "keep_asking", "p": "keep_planning"}
    verdict = (
        verdicts.get(reply.lower()[:1]) if len(reply) <= 1 or reply.lower() in ("approve", "keep") else None
    )
    return PlanReview(verdict=verdict or "keep_planning", message="" if verdict else reply)


class PlanReviewUI:
    """`QuestionUI` for ExitPlanMode."""

    def widget(self, ask: PendingQuestion[PlanReview | None]) -> WidgetQuestion[PlanReview | None]:
        return WidgetPlanReview(ask=ask)

    def on_stdin(self, request: Question[PlanReview | None]) -> PlanReview | None:
        return review_on_stdin(_plan(request))

    def unanswered(self, request: Question[PlanReview | None], why: str) -> PlanReview | None:
        return None

    def card_status(self, answer: PlanReview | None) -> Status:
        return "running"
