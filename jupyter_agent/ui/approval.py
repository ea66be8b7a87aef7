"""Asking the person: Approve / Deny widgets in the cell output, stdin in a terminal, refusal when headless.

The question shows the effect before it happens (the diff, the exact command), and collapses to a one-line
record of the decision once answered.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..masking import clip
from ..tools.core import Preview
from ..tools.dispatch import Approval, ApprovalRequest, Approve, Reject
from ..tools.question import Question
from .at_cell import CellPages, CellQuestion
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


#: The verb an approval asks with for a NotebookEdit, by its edit_mode (lower case: a verb, not a tool's name).
_CELL_VERBS = {"delete": "delete", "move": "move", "replace": "edit"}


def question_in_words(request: ApprovalRequest) -> str:
    """The approval's question as a person asks it ("Edit cell 3 ('clean') of analysis.ipynb?": the cell by its
    position and first line, as the preview names it), not the tool's log line; a tool with no wording of its own is asked by its title."""
    given = request.input
    cell = request.preview.cells[0] if request.preview.cells else None
    path = str(given.get("file_path") or given.get("notebook_path") or (cell.notebook if cell else ""))
    from ..builtin_tools.files.edit import EditTool
    from ..builtin_tools.files.multiedit import MultiEditTool
    from ..builtin_tools.files.write import WriteTool
    from ..builtin_tools.notebook.edit import NotebookEdit
    from ..builtin_tools.notebook.run import RunCell
    from ..builtin_tools.shell import BashTool

    if request.tool == NotebookEdit.name:
        of = f" of {path}" if path else ""
        mode = str(given.get("edit_mode") or "replace")
        if mode == "insert":
            return f"Add a {given.get('cell_type') or 'code'} cell to {path or 'the notebook'}?"
        verb = _CELL_VERBS.get(mode, "edit").capitalize()
        if request.preview.subject:  # "cell 3 ('# clean') of analysis.ipynb", as the tool found it
            return f"{verb} {request.preview.subject}?"
        first = (cell.before.strip().splitlines() or [""])[0] if cell is not None else ""
        named = f"cell {given.get('cell_id') or ''}".strip() + (
            f" ({clip(first, 40, marker='…')!r})" if first else ""
        )
        return f"{verb} {named}{of}?"
    if request.tool in (EditTool.name, MultiEditTool.name) and path:
        return f"Edit {path}?"
    if request.tool == WriteTool.name and path:
        return f"Write {path}?"
    if request.tool == BashTool.name and given.get("command"):
        return f"Run the command {clip(str(given['command']), 80, marker='…')!r}?"
    if request.tool == RunCell.name and cell is not None:
        return f"Run cell {cell.cell_id} of {cell.notebook}?"
    return f"Allow {request.title}?"


class WidgetApproval(WidgetQuestion[Approval]):
    """The question in words above the effect's preview, and three main answers — Allow once, Always allow, Deny —
    with the rest behind "More…": for an edit "Allow all edits in this run", "Show in notebook" when the question
    is shown at its cells too, and Deny with a message. The buttons carry JupyterLab's own classes (`jp-Button`,
    `jp-mod-accept`, `jp-mod-reject`); the labextension answers the focused approval with Enter and Escape."""

    #: The same question at its cells in the page (set by the presenter before `show`).
    at_cell: CellQuestion | None = None

    def build(self) -> Any:
        w = widgets()
        request = _approval(self.ask.request)
        always_says = f"Always allow adds {request.suggested_rule} for this session"
        head = w.HTML(
            value=(
                f'<div role="heading" aria-level="2" style="font-weight:600;">{esc(question_in_words(request))}</div>'
                f'<div style="font-size:11px;color:var(--jp-ui-font-color1);">{esc(request.reason)} · '
                f"<code>{esc(request.title)}</code></div>"
            )
        )
        body = w.HTML(value=preview_html(request.preview))
        allow = _button(
            w, "Allow once", "jp-mod-accept", "jp-agent-allow-once", tooltip="Allow this call (Enter)"
        )
        always = _button(
            w, "Always allow", "jp-agent-allow-always", tooltip=always_says.removeprefix("Always allow ")
        )
        deny = _button(w, "Deny", "jp-mod-reject", "jp-agent-deny", tooltip="Deny this call (Escape)")
        more = _button(w, "More…", "jp-agent-approval-more", tooltip="more answers")
        in_project = _button(
            w,
            "Always allow in this project",
            "jp-agent-allow-project",
            tooltip=f"adds {request.suggested_rule} to this project's .claude/settings.local.json",
        )
        message = w.Text(
            placeholder="Tell the agent why, or what to do instead…", layout=w.Layout(width="60%")
        )
        send = _button(w, "Deny with message", "jp-agent-deny-message")

        def answer_with(choice: Callable[[], Approval]) -> Callable[[Any], None]:
            return lambda _widget: self.answer(choice())

        on_click(allow, answer_with(Approve))
        on_click(always, answer_with(lambda: Approve(always=True)))
        on_click(in_project, answer_with(lambda: Approve(in_project=True)))
        on_click(deny, answer_with(Reject))
        on_click(send, answer_with(lambda: Reject(message=message.value.strip())))
        on_submit(message, answer_with(lambda: Reject(message=message.value.strip())))
        extra: list[Any] = [in_project]
        if request.kind == "edit":
            all_edits = _button(
                w,
                "Allow all edits in this run",
                "jp-agent-allow-edits",
                tooltip="this edit, and every later edit of this run, without asking (execution still asks)",
            )
            on_click(all_edits, answer_with(lambda: Approve(edits_this_run=True)))
            extra.append(all_edits)
        at_cell = self.at_cell
        if at_cell is not None:
            show = _button(
                w,
                "Show in notebook",
                "jp-agent-show-in-notebook",
                tooltip="scroll to the cell this is about; you can answer there too",
            )
            on_click(show, lambda _widget: at_cell.reveal())
            extra.append(show)
        buttons = w.HBox([allow, always, deny, more])
        says = w.HTML(
            value=f'<div style="font-size:11px;color:var(--jp-ui-font-color1);">{esc(always_says)}</div>'
        )
        reply = w.HBox([message, send])
        rest = w.VBox([w.HBox(extra), reply] if extra else [reply], layout=w.Layout(display="none"))

        def toggle(_widget: Any) -> None:
            rest.layout.display = "" if rest.layout.display == "none" else "none"
            more.description = "Less" if rest.layout.display == "" else "More…"

        on_click(more, toggle)
        box = w.VBox(
            [head, body, buttons, says, rest],
            layout=w.Layout(
                border="1px solid var(--jp-border-color1,#bdbdbd)", padding="6px", margin="4px 0"
            ),
        )
        add_class(box, "jp-agent-approval")
        self.widgets = [
            head,
            body,
            allow,
            always,
            deny,
            more,
            *extra,
            send,
            message,
            buttons,
            says,
            reply,
            rest,
            box,
        ]
        return box

    def record_text(self, answer: Approval | None) -> str:
        return record_text(_approval(self.ask.request), answer)


def _button(w: Any, label: str, *classes: str, tooltip: str = "") -> Any:
    """A button as JupyterLab draws its own (`jp-Button`, and `jp-mod-accept` / `jp-mod-reject` for the main
    answers), with the label as its accessible name."""
    button = w.Button(description=label, tooltip=tooltip or label, layout=w.Layout(width="auto"))
    for name in ("jp-Button", *classes):
        add_class(button, name)
    return button


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


def offer_at_cells(
    at_cells: CellPages | None, request: Question[Any], widget: WidgetQuestion[Any]
) -> CellQuestion | None:
    """The approval at its cells in the page too, answered through the widget's own `answer` (so either place
    closes both); None when it is no approval, is about no cell, or no page shows cells. Call before `build`:
    the widget then has its "Show in notebook"."""
    if at_cells is None or not isinstance(request, ApprovalRequest) or not request.preview.cells:
        return None
    at_cell = at_cells.offer(request, widget.answer)
    if isinstance(widget, WidgetApproval):
        widget.at_cell = at_cell
    return at_cell


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
