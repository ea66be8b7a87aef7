"""Asking the person: Approve / Deny widgets in the cell output, stdin in a terminal, refusal when headless.

The question shows the effect before it happens (the diff, the exact command), and collapses to a one-line
record of the decision once answered.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..tools.core import Preview
from ..tools.dispatch import Approval, ApprovalRequest, Approve, Reject
from .channel import AskApproval
from .diff_view import diff_to_html
from .html import esc, pre


def preview_html(preview: Preview) -> str:
    if preview.kind == "diff":
        return diff_to_html(preview.text)
    return pre(
        preview.text, style="padding:4px;background:var(--jp-layout-color2,#f5f5f5);border-radius:3px;"
    )


def record_text(request: ApprovalRequest, answer: Approval | None) -> str:
    if answer is None:
        return f"⏹ {request.title}: interrupted before an answer"
    if isinstance(answer, Approve):
        how = (
            f"always allowed ({request.suggested_rule} for this session)" if answer.always else "allowed once"
        )
        return f"✅ {request.title}: {how}"
    extra = f" — “{answer.message}”" if answer.message else ""
    return f"🚫 {request.title}: denied{extra}"


def headless_refusal(request: ApprovalRequest) -> Reject:
    return Reject(
        message=(
            f"no one could approve {request.title} (no widget frontend answered: nbclient/papermill or a closed "
            f"browser). To allow it without asking, add the rule `%agent allow {request.suggested_rule}`, pass "
            f"`--allow '{request.suggested_rule}'`, or use `--mode acceptEdits` / `--mode bypassPermissions`"
        )
    )


@dataclass
class WidgetApproval:
    """One pending question as ipywidgets; clicks arrive through the pump while the cell is busy."""

    ask: AskApproval
    on_answer: Callable[[ApprovalRequest, Approval], None]
    display_id: str = ""
    box: Any = None
    answered: bool = False
    #: Set by a click; shown by `settle()` on the UI loop's next tick, when output goes to the running cell
    #: again (a click is handled with the comm message as the parent).
    record: str | None = None
    _widgets: list[Any] = field(default_factory=list[Any])

    def show(self) -> None:
        import ipywidgets as w

        request = self.ask.request
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
        deny = w.Button(description="Deny", button_style="danger", icon="times")
        message = w.Text(
            placeholder="Tell the agent why, or what to do instead…", layout=w.Layout(width="60%")
        )
        send = w.Button(
            description="Deny with message", button_style="warning", layout=w.Layout(width="auto")
        )

        def answer_with(choice: Callable[[], Approval]) -> Callable[[Any], None]:
            return lambda _widget: self._answer(choice())

        allow.on_click(answer_with(Approve))
        always.on_click(answer_with(lambda: Approve(always=True)))
        deny.on_click(answer_with(Reject))
        send.on_click(answer_with(lambda: Reject(message=message.value.strip())))
        message.on_submit(answer_with(lambda: Reject(message=message.value.strip())))
        buttons = w.HBox([allow, always, deny])
        box = w.VBox(
            [head, body, buttons, w.HBox([message, send])],
            layout=w.Layout(border="1px solid var(--jp-warn-color1,#f0ad4e)", padding="6px", margin="4px 0"),
        )
        box.add_class("jp-agent-approval")
        self.box = box
        self._widgets = [head, body, allow, always, deny, message, send, buttons, box]
        import uuid

        from IPython.display import display

        self.display_id = uuid.uuid4().hex
        display(box, display_id=self.display_id)

    def _answer(self, answer: Approval) -> None:
        if self.answered:
            return
        self.answered = True
        resolve(self.ask.reply, answer)
        self.record = record_text(self.ask.request, answer)

    def settle(self) -> bool:
        """On the UI thread's tick: show the decision (or an abandoned question) as one line. True when done."""
        if not self.answered and self.ask.reply.cancelled():
            self.answered = True
            self.record = record_text(self.ask.request, None)
        if self.record is None:
            return False
        self._collapse(self.record)
        self.on_answer(
            self.ask.request, self.ask.reply.result() if not self.ask.reply.cancelled() else Reject()
        )
        return True

    def _collapse(self, text: str) -> None:
        from IPython.display import update_display

        bundle = {
            "text/plain": text,
            "text/html": f'<div style="font-size:12px;margin:2px 0;">{esc(text)}</div>',
        }
        update_display(bundle, raw=True, display_id=self.display_id)
        for widget in self._widgets:
            widget.close()


def ask_on_stdin(request: ApprovalRequest) -> Approval:
    """Terminal IPython: a plain question on stdin."""
    print(f"\n{request.title} — {request.reason}\n{request.preview.text}\n")
    answer = input("Allow? [y]es once / [a]lways / [n]o / or type a message to deny with it: ").strip()
    if answer.lower() in ("y", "yes"):
        return Approve()
    if answer.lower() in ("a", "always"):
        return Approve(always=True)
    if answer.lower() in ("", "n", "no"):
        return Reject()
    return Reject(message=answer)


def resolve(reply: concurrent.futures.Future[Approval], answer: Approval) -> None:
    if reply.set_running_or_notify_cancel():
        reply.set_result(answer)
