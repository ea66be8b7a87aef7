"""The approval card: what the model wrote (the call's title, the reason, the preview) is shown as text, never
as live HTML, while the cell waits and after the answer collapses it to one line."""

from __future__ import annotations

import concurrent.futures
import io
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output
from test_safe_html import assert_inert

from jupyter_agent.builtin_tools.workflow import PlanApproval
from jupyter_agent.permissions.policy import Rule
from jupyter_agent.tools.core import Preview
from jupyter_agent.tools.dispatch import Approval, ApprovalRequest, Approve, Reject
from jupyter_agent.ui.approval import ApprovalUI, WidgetApproval, ask_on_stdin, headless_refusal
from jupyter_agent.ui.channel import PendingQuestion

ATTACK = '<img src=x onerror="window.pwned=1">'


def hostile_request() -> ApprovalRequest:
    return ApprovalRequest(
        tool_use_id="toolu_1",
        tool="mcp__srv__run",
        title=f"mcp__srv__run {ATTACK}",
        input={"q": ATTACK},
        preview=Preview(kind="args", text=ATTACK),
        reason=f"the model says: {ATTACK}",
        suggested_rule=Rule("mcp__srv__run"),
    )


def test_model_written_text_in_the_approval_card_is_inert(shell: InteractiveShell) -> None:
    card = WidgetApproval(ask=PendingQuestion(request=hostile_request(), reply=concurrent.futures.Future()))
    with capture_output():
        card.show()
    html_parts: list[str] = [w.value for w in card.widgets if type(w).__name__ == "HTML"]
    assert len(html_parts) == 3  # the question, the preview, what Always allow adds
    for html in html_parts:
        assert_inert(html)
    assert "mcp__srv__run &lt;img src=x onerror=&quot;window.pwned=1&quot;&gt;" in html_parts[0]
    assert "&lt;img" in html_parts[1]
    assert "the model says: &lt;img src=x" in html_parts[0]

    card.answer(Approve())
    with capture_output() as captured:
        assert card.settle()
    assert card.outcome == Approve()
    assert card.ask.reply.result() == Approve()
    collapsed: list[dict[str, Any]] = [out.data for out in captured.outputs]
    assert len(collapsed) == 1
    assert collapsed[0]["text/plain"] == f"✅ mcp__srv__run {ATTACK}: allowed once"
    assert_inert(collapsed[0]["text/html"])
    assert "&lt;img" in collapsed[0]["text/html"]


def plain_request(preview: Preview | None = None) -> ApprovalRequest:
    return ApprovalRequest(
        tool_use_id="toolu_2",
        tool="Bash",
        title="Bash git push",
        input={"command": "git push"},
        preview=preview or Preview(kind="code", text="git push", language="bash"),
        reason="Bash runs commands; the mode asks first",
        suggested_rule=Rule("Bash", "git push*"),
    )


def shown_card(shell: InteractiveShell, request: ApprovalRequest | None = None) -> WidgetApproval:
    made = WidgetApproval(
        ask=PendingQuestion(request=request or plain_request(), reply=concurrent.futures.Future())
    )
    with capture_output():
        made.show()
    return made


def widget(made: WidgetApproval, model: str, description: str = "") -> Any:
    found = [
        w for w in made.widgets if type(w).__name__ == model and getattr(w, "description", "") == description
    ]
    assert len(found) == 1, (model, description)
    return found[0]


def collapse(made: WidgetApproval) -> str:
    with capture_output() as captured:
        assert made.settle()
    assert len(captured.outputs) == 1
    return captured.outputs[0].data["text/plain"]


@pytest.mark.parametrize(
    ("button", "answer", "record"),
    [
        ("Allow once", Approve(), "✅ Bash git push: allowed once"),
        (
            "Always allow",
            Approve(always=True),
            "✅ Bash git push: always allowed (Bash(git push*) for this session)",
        ),
        (
            "Always allow in this project",
            Approve(in_project=True),
            "✅ Bash git push: always allowed in this project (Bash(git push*), in .claude/settings.local.json)",
        ),
        ("Deny", Reject(), "🚫 Bash git push: denied"),
    ],
)
def test_each_button_answers_the_question_and_collapses_the_card_to_its_record(
    shell: InteractiveShell, button: str, answer: Approval, record: str
) -> None:
    made = shown_card(shell)
    assert not made.settle()  # nothing to show before an answer
    widget(made, "Button", button).click()
    assert made.ask.reply.result() == answer
    assert collapse(made) == record
    assert made.outcome == answer
    assert all(w.comm is None for w in made.widgets)  # closed: the buttons are gone from the page


def test_deny_with_a_message_sends_the_typed_text_trimmed(shell: InteractiveShell) -> None:
    made = shown_card(shell)
    text = widget(made, "Text")
    assert text.placeholder == "Tell the agent why, or what to do instead…"
    text.value = "  use --dry-run first  "
    widget(made, "Button", "Deny with message").click()
    assert made.ask.reply.result() == Reject(message="use --dry-run first")
    assert collapse(made) == "🚫 Bash git push: denied — “use --dry-run first”"


def test_only_the_first_click_counts(shell: InteractiveShell) -> None:
    made = shown_card(shell)
    widget(made, "Button", "Deny").click()
    with capture_output() as second:
        widget(made, "Button", "Allow once").click()
    assert (second.stdout, second.stderr, second.outputs) == ("", "", [])  # ignored, not an error traceback
    assert made.ask.reply.result() == Reject()
    assert collapse(made) == "🚫 Bash git push: denied"


def test_the_record_replaces_the_card_where_it_was_shown(shell: InteractiveShell) -> None:
    made = WidgetApproval(ask=PendingQuestion(request=plain_request(), reply=concurrent.futures.Future()))
    with capture_output() as shown:
        made.show()
    widget(made, "Button", "Allow once").click()
    with capture_output() as collapsed:
        assert made.settle()
    (card,), (record,) = shown.outputs, collapsed.outputs
    assert card.transient["display_id"] == made.display_id
    assert record.update and record.transient["display_id"] == made.display_id
    assert record.data["text/plain"] == "✅ Bash git push: allowed once"


def test_the_card_is_one_box_shown_once_with_question_preview_buttons_and_message(
    shell: InteractiveShell,
) -> None:
    made = WidgetApproval(ask=PendingQuestion(request=plain_request(), reply=concurrent.futures.Future()))
    with capture_output() as captured:
        made.show()
    box = made.widgets[-1]
    assert "jp-agent-approval" in box._dom_classes
    (shown,) = captured.outputs
    assert shown.data["application/vnd.jupyter.widget-view+json"]["model_id"] == box.model_id
    head, body, buttons, says, rest = box.children
    assert "Run the command &#x27;git push&#x27;?" in head.value and "<pre" in body.value
    assert [b.description for b in buttons.children] == ["Allow once", "Always allow", "Deny", "More…"]
    assert "Always allow adds Bash(git push*) for this session" in says.value  # said, not only in a tooltip
    assert rest.layout.display == "none"  # Deny with a message is behind More…
    more_row, ask_why = rest.children
    assert [b.description for b in more_row.children] == ["Always allow in this project"]
    assert [type(w).__name__ for w in ask_why.children] == ["Text", "Button"]
    more = buttons.children[3]
    more.click()
    assert rest.layout.display == "" and more.description == "Less"
    allow, _always, deny, _more = buttons.children
    assert {"jp-Button", "jp-mod-accept"} <= set(allow._dom_classes)
    assert {"jp-Button", "jp-mod-reject"} <= set(deny._dom_classes)
    assert all(b.button_style == "" for b in buttons.children)  # no loud colours: JupyterLab's own buttons
    assert made.display_id


def test_the_always_button_says_which_rule_it_adds(shell: InteractiveShell) -> None:
    made = shown_card(shell)
    assert widget(made, "Button", "Always allow").tooltip == "adds Bash(git push*) for this session"
    in_project = widget(made, "Button", "Always allow in this project")
    assert in_project.tooltip == "adds Bash(git push*) to this project's .claude/settings.local.json"


def test_an_abandoned_question_collapses_as_interrupted(shell: InteractiveShell) -> None:
    made = shown_card(shell)
    made.ask.reply.cancel()
    assert collapse(made) == "⏹ Bash git push: interrupted before an answer"
    assert made.outcome is None
    widget(made, "Button", "Allow once").click()  # a late click answers nothing
    assert made.ask.reply.cancelled()
    assert collapse(made) == "⏹ Bash git push: interrupted before an answer"  # nor changes the record


def test_the_preview_shows_a_diff_as_a_diff_and_a_command_as_text(shell: InteractiveShell) -> None:
    diff = "--- a/n.md\n+++ b/n.md\n@@ -1 +1 @@\n-old\n+new\n"
    as_diff = shown_card(shell, plain_request(Preview(kind="diff", text=diff)))
    body = [w.value for w in as_diff.widgets if type(w).__name__ == "HTML"][1]
    assert "<span>+new</span>" in body and "<pre" not in body
    as_code = shown_card(shell)
    body = [w.value for w in as_code.widgets if type(w).__name__ == "HTML"][1]
    assert body == (
        '<pre style="margin:0;white-space:pre-wrap;word-break:break-word;font-family:var(--jp-code-font-family,'
        'monospace);font-size:12px;padding:4px;background:var(--jp-layout-color2,#f5f5f5);border-radius:3px;">'
        "git push</pre>"
    )


@pytest.mark.parametrize(
    ("typed", "answer"),
    [
        ("y", Approve()),
        ("YES", Approve()),
        ("a", Approve(always=True)),
        ("always", Approve(always=True)),
        ("p", Approve(in_project=True)),
        ("project", Approve(in_project=True)),
        ("", Reject()),
        ("n", Reject()),
        ("No", Reject()),
        ("  not on main  ", Reject(message="not on main")),
    ],
)
def test_in_a_terminal_the_question_is_asked_on_stdin(
    typed: str, answer: Approval, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(typed + "\n"))
    assert ask_on_stdin(plain_request()) == answer
    out = capsys.readouterr().out
    assert out.startswith("\nBash git push — Bash runs commands; the mode asks first\ngit push\n\n")
    assert out.endswith(
        "Allow? [y]es once / [a]lways / always in this [p]roject / [n]o / or type a message to deny with it: "
    )


def test_headless_the_refusal_says_no_one_could_answer_and_how_to_allow_the_call() -> None:
    request = plain_request()
    assert headless_refusal(request) == Reject(
        message=(
            "no one could approve Bash git push: no widget frontend answered (a closed browser, or a frontend "
            f"without ipywidgets). To allow it without asking, {request.how_to_allow()}"
        )
    )


def test_the_refusal_says_why_no_one_could_answer_when_that_is_known() -> None:
    request = plain_request()
    why = "in-cell approvals need ipykernel internals that ipykernel 7.5.0 does not have (x)"
    assert headless_refusal(request, why).message == (
        f"no one could approve Bash git push: {why}. To allow it without asking, {request.how_to_allow()}"
    )


def test_the_approval_ui_marks_the_asking_card_running_when_allowed_and_denied_otherwise() -> None:
    ui = ApprovalUI()
    assert ui.card_status(Approve()) == "running"
    assert ui.card_status(Approve(always=True)) == "running"
    assert ui.card_status(Reject(message="no")) == "denied"
    assert ui.card_status(None) == "denied"  # the worker gave up waiting


def test_the_approval_ui_asks_in_the_cell_on_stdin_or_refuses_when_no_one_can_answer(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    ui, request = ApprovalUI(), plain_request()
    ask: PendingQuestion[Approval] = PendingQuestion(request=request, reply=concurrent.futures.Future())
    card = ui.widget(ask)
    assert isinstance(card, WidgetApproval) and card.ask is ask
    monkeypatch.setattr("sys.stdin", io.StringIO("a\n"))
    assert ui.on_stdin(request) == Approve(always=True)
    assert ui.unanswered(request, "the reason") == headless_refusal(request, "the reason")


def test_the_approval_ui_refuses_another_kind_of_question_by_name() -> None:
    with pytest.raises(TypeError, match=r"^ApprovalUI asked a PlanApproval, not an ApprovalRequest$"):
        # the wrong kind of question on purpose: the type checker would refuse it, the check at run time too
        ApprovalUI().unanswered(PlanApproval(plan="1. fix"), "why")  # pyright: ignore[reportArgumentType]
