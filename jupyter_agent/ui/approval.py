"""Asking the person: Approve / Deny widgets in the cell output, stdin in a terminal, refusal when headless.

The question shows the effect before it happens (the diff, the exact command), and collapses to a one-line
record of the decision once answered.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..tools.core import Preview
from ..tools.dispatch import Approval, ApprovalRequest, Approve, Reject
from ..tools.question import Question
from .at_cell import CellQuestion
from .cards import Status
from .channel import PendingQuestion
from .diff_view import diff_to_html
from .gate import say, widgets
from .html import esc, pre
from .jupyter_api import add_class, on_click, on_submit
from .questions import WidgetQuestion


def preview_html(preview: Preview) -> str:
    """The effect to approve, as safe HTML (masked by the widget it is shown in)."""
    if preview.kind == "diff":
        body = diff_to_html(preview.text)
    else:
        body = pre(
            preview.text, style="padding:4px;background:var(--jp-layout-color2,#f5f5f5);border-radius:3px;"
        )
    if not preview.note:
        return body
    return body + f'<div class="jp-agent-approval-note" style="font-size:11px;">{esc(preview.note)}</div>'


def record_text(request: ApprovalRequest, answer: Approval | None) -> str:
    if answer is None:
        return f"⏹ {request.title}: interrupted before an answer"
    if isinstance(answer, Approve):
        if answer.edits_this_run:
            how = "allowed, with every edit for the rest of this run"
        elif answer.in_project:
            how = f"always allowed in this project ({request.suggested_rule}, in .claude/settings.local.json)"
        elif answer.always:
            how = f"always allowed ({request.suggested_rule} for this session)"
        else:
            how = "allowed once"
        return f"✅ {request.title}: {how}"
    if answer.code == "STALE_READ":
        return f"🚫 {request.title}: refused (STALE_READ) — {answer.message}"
    extra = f" — “{answer.message}”" if answer.message else ""
    return f"🚫 {request.title}: denied{extra}"


#: Why no one could answer when the presenter was not told (a widget frontend did not answer the check).
NO_WIDGET_FRONTEND = "no widget frontend answered (a closed browser, or a frontend without ipywidgets)"


def headless_refusal(request: ApprovalRequest, why: str = NO_WIDGET_FRONTEND) -> Reject:
    """The refusal says why no one could answer, and names only settings the policy confirmed would let this
    very call run without asking."""
    own = f". {request.own_reason[:1].upper()}{request.own_reason[1:]}" if request.own_reason else ""
    return Reject(
        message=f"no one could approve {request.title}: {why}. To allow it without asking, "
        f"{request.how_to_allow()}{own}"
    )


class WidgetApproval(WidgetQuestion[Approval]):
    """Allow once / Always allow / Deny / Deny with a message, above the effect's preview; for an edit also
    "Allow all edits in this run", and "Show in notebook" when the question is shown at its cells too."""

    #: The same question at its cells in the page (set by the presenter before `show`).
    at_cell: CellQuestion | None = None

    def build(self) -> Any:
        w = widgets()
        request = _approval(self.ask.request)
        head = w.HTML(
            value=(
                f'<div style="font-weight:600;">Allow <code>{esc(request.title)}</code>?</div>'
                f'<div style="font-size:11px;color:var(--jp-ui-font-color2,#666);">{esc(request.reason)}</div>'
            )
        )
        body = w.HTML(value=preview_html(request.preview))
        allow = w.Button(description="Allow once", button_style="success", icon="check")
        always = w.Button(
            description="Always allow", tooltip=f"adds {request.suggested_rule} for this session"
        )
        in_project = w.Button(
            description="Always allow in this project",
            tooltip=f"adds {request.suggested_rule} to this project's .claude/settings.local.json",
            layout=w.Layout(width="auto"),
        )
        deny = w.Button(description="Deny", button_style="danger", icon="times")
        message = w.Text(
            placeholder="Tell the agent why, or what to do instead…", layout=w.Layout(width="60%")
        )
        send = w.Button(
            description="Deny with message", button_style="warning", layout=w.Layout(width="auto")
        )

        def answer_with(choice: Callable[[], Approval]) -> Callable[[Any], None]:
            return lambda _widget: self.answer(choice())

        on_click(allow, answer_with(Approve))
        on_click(always, answer_with(lambda: Approve(always=True)))
        on_click(in_project, answer_with(lambda: Approve(in_project=True)))
        on_click(deny, answer_with(Reject))
        on_click(send, answer_with(lambda: Reject(message=message.value.strip())))
        on_submit(message, answer_with(lambda: Reject(message=message.value.strip())))
        row = [allow, always, in_project]
        if request.kind == "edit":
            all_edits = w.Button(
                description="Allow all edits in this run",
                tooltip="this edit, and every later edit of this run, without asking (execution still asks)",
                layout=w.Layout(width="auto"),
            )
            on_click(all_edits, answer_with(lambda: Approve(edits_this_run=True)))
            add_class(all_edits, "jp-agent-allow-edits")
            row.append(all_edits)
        row.append(deny)
        at_cell = self.at_cell
        if at_cell is not None:
            show = w.Button(
                description="Show in notebook",
                tooltip="scroll to the cell this is about; you can answer there too",
                icon="arrow-right",
                layout=w.Layout(width="auto"),
            )
            on_click(show, lambda _widget: at_cell.reveal())
            add_class(show, "jp-agent-show-in-notebook")
            row.append(show)
        buttons = w.HBox(row)
        reply = w.HBox([message, send])
        box = w.VBox(
            [head, body, buttons, reply],
            layout=w.Layout(border="1px solid var(--jp-warn-color1,#f0ad4e)", padding="6px", margin="4px 0"),
        )
        add_class(box, "jp-agent-approval")
        self.widgets = [head, body, *row, message, send, buttons, reply, box]
        return box

    def record_text(self, answer: Approval | None) -> str:
        return record_text(_approval(self.ask.request), answer)


class ApprovalUI:
    """How a tool approval is asked: widgets, stdin, or a refusal that names the rule (`QuestionUI[Approval]`)."""

    def widget(self, ask: PendingQuestion[Approval]) -> WidgetQuestion[Approval]:
        return WidgetApproval(ask=ask)

    def on_stdin(self, request: Question[Approval]) -> Approval:
        return ask_on_stdin(_approval(request))

    def unanswered(self, request: Question[Approval], why: str) -> Approval:
        return headless_refusal(_approval(request), why)

    def card_status(self, answer: Approval | None) -> Status:
        return "running" if isinstance(answer, Approve) else "denied"


def _approval(request: Question[Approval]) -> ApprovalRequest:
    if not isinstance(request, ApprovalRequest):
        raise TypeError(f"ApprovalUI asked a {type(request).__name__}, not an ApprovalRequest")
    return request


def ask_on_stdin(request: ApprovalRequest) -> Approval:
    """Terminal IPython: a plain question on stdin, control characters escaped and secrets masked."""
    note = request.preview.note
    say(f"\n{request.title} — {request.reason}\n{request.preview.text}\n" + (f"{note}\n" if note else ""))
    answer = input(
        "Allow? [y]es once / [a]lways / always in this [p]roject / [n]o / or type a message to deny with it: "
    ).strip()
    if answer.lower() in ("y", "yes"):
        return Approve()
    if answer.lower() in ("a", "always"):
        return Approve(always=True)
    if answer.lower() in ("p", "project"):
        return Approve(in_project=True)
    if answer.lower() in ("n", "no"):
        return Reject()
    return Reject(message=answer)  # an empty answer is a plain no
