"""A tool call's card: its one line (icon, headline, status, duration), and the details behind it."""

from __future__ import annotations

import re
from typing import Any, TypedDict, Unpack

import pytest

from jupyter_agent.base.result import ToolResult
from jupyter_agent.builtin_tools.verify.tool import NOTEBOOK_FAILS
from jupyter_agent.permissions.kinds import ToolKind
from jupyter_agent.ui.cards import Status, ToolCard
from jupyter_agent.ui.html import MUTED, legible

DIFF = "--- a\n+++ b\n@@ -1,2 +1,3 @@\n-x\n+y\n+z\n+w\n keep\n"
PRE = (
    '<pre style="margin:0;white-space:pre-wrap;word-break:break-word;'
    'font-family:var(--jp-code-font-family,monospace);font-size:12px;">'
)
LABEL = f'<div style="font-size:11px;color:{MUTED};margin-top:4px;">'


class CardFields(TypedDict, total=False):
    """The fields of a `ToolCard` a test sets, with their types, passed on as they are."""

    title: str
    status: Status
    duration: float | None
    result: ToolResult | None
    collapsed: bool
    extra: dict[str, Any]
    children: list[ToolCard]


def card(
    name: str = "Read", kind: ToolKind = "read", *, input: object = None, **fields: Unpack[CardFields]
) -> ToolCard:
    return ToolCard(
        call_id="t1", name=name, input={"file_path": "a.py"} if input is None else input, kind=kind, **fields
    )


@pytest.mark.parametrize(
    ("made", "result", "line"),
    [
        (card(), None, "🔍 Read  […]"),
        (card(title="Read a.py", status="running"), None, "🔍 Read a.py  [running]"),
        (
            card("Edit", "edit", title="Edit utils.py", status="done", duration=0.44),
            ToolResult.ok("Edited", summary="Edited utils.py (+3 −1)", diff=DIFF),
            "✏️ Edited utils.py (+3 −1)  [done 0.4s]",
        ),
        (
            card("Grep", title='Grep "TODO"', status="done"),
            ToolResult.ok("...", summary='12 files match "TODO"'),
            '🔍 12 files match "TODO"  [done]',
        ),
        (
            card("Grep", title='Grep "TODO"', status="done"),
            ToolResult.ok("...", summary="12 files"),
            '🔍 Grep "TODO" · 12 files  [done]',
        ),
        (card("Glob", status="done"), ToolResult.ok("...", summary="3 files"), "🔍 Glob · 3 files  [done]"),
        (
            card(title="Read nope", status="error"),
            ToolResult.error("FILE_NOT_FOUND", "no such file"),
            "🔍 Read nope  [FILE_NOT_FOUND]\n    no such file",
        ),
        (
            card("Bash", "execute", title="Bash rm -rf x", status="denied"),
            ToolResult.error("DENIED", "no"),
            "▶️ Bash rm -rf x  [DENIED]\n    no",
        ),
        (
            # a report: its first paragraph says why; the table after the blank line is in the details
            card("VerifyNotebook", "execute", title="VerifyNotebook a.ipynb", status="error"),
            ToolResult.error(
                NOTEBOOK_FAILS, "a.ipynb fails at cell c2: NameError\n(a fresh kernel)\n\nc1 ok\nc2 error"
            ),
            "▶️ VerifyNotebook a.ipynb  [NOTEBOOK_FAILS]\n    a.ipynb fails at cell c2: NameError (a fresh kernel)",
        ),
        (card(status="interrupted"), ToolResult.error("INTERRUPTED", "stopped"), "🔍 Read  [interrupted]"),
        (card(status="denied"), None, "🔍 Read  [denied]"),
        # a tool's own error result without a code: the status says what happened to the call
        (card(status="denied"), ToolResult(content="nope", is_error=True), "🔍 Read  [denied]\n    nope"),
        (card(status="error"), ToolResult(content="boom", is_error=True), "🔍 Read  [error]\n    boom"),
        (
            # a kind outside ToolKind (a custom tool's typo) falls back to the wrench
            card("mine", "unknown-kind", status="asking"),  # pyright: ignore[reportArgumentType]
            None,
            "🔧 mine  [waiting for approval]",
        ),
    ],
)
def test_the_one_line_of_a_card(made: ToolCard, result: ToolResult | None, line: str) -> None:
    """The headline; a refused or failed call says why on a second line (text/plain is all some viewers show)."""
    made.result = result
    assert made.text() == line
    if made.status != "denied":  # a refusal's headline says why too (the card stays closed)
        line = line.split("\n")[0]
    summary = re.search(r"<summary[^>]*>(.*?)</summary>", made.html())
    assert summary is not None
    plain = re.sub(r"<[^>]+>", " ", summary.group(1)).replace("&quot;", '"')
    assert (
        plain.replace(" · ", " ").split()
        == line.replace("[", "").replace("]", "").replace(" · ", " ").split()
    )


def test_an_error_card_opens_with_a_red_border_and_shows_arguments_and_result() -> None:
    failed = card(title="Read nope", status="error")
    failed.result = ToolResult.error("FILE_NOT_FOUND", "no <such> file")
    assert failed.html() == (
        '<details class="jp-agent-card" data-status="error" open style="border:1px solid '
        'var(--jp-error-color1,#e57373);border-radius:4px;padding:3px 8px;margin:3px 0;">'
        '<summary style="cursor:pointer;list-style-position:inside;">🔍 <code>Read nope</code>'
        f'<span style="color:{legible("error")};font-size:11px;margin-left:8px;">FILE_NOT_FOUND</span>'
        '</summary><div style="margin:4px 0 2px 0;">'
        f"{LABEL}arguments</div>{PRE}{{\n  &quot;file_path&quot;: &quot;a.py&quot;\n}}</pre>"
        f"{LABEL}result</div>{PRE}FILE_NOT_FOUND: no &lt;such&gt; file</pre></div></details>"
    )


def test_a_quiet_runs_error_card_stays_closed_and_a_done_card_has_a_plain_border() -> None:
    quiet = card(status="error", collapsed=True)
    quiet.result = ToolResult.error("FILE_NOT_FOUND", "x")
    assert quiet.html().startswith(
        '<details class="jp-agent-card" data-status="error" style="border:1px solid var(--jp-error-color1'
    )
    done = card(status="done", duration=1.25)
    done.result = ToolResult.ok("fine")
    html = done.html()
    assert html.startswith(
        '<details class="jp-agent-card" data-status="done" style="border:1px solid var(--jp-border-color2,#ddd);'
    )
    assert (
        f'<span style="color:{legible("success")};font-size:11px;margin-left:8px;">done · 1.2s</span>' in html
    )


def test_a_card_with_a_diff_shows_it_between_arguments_and_result() -> None:
    edited = card("Edit", "edit", status="done")
    edited.result = ToolResult.ok("Edited", diff=DIFF)
    html = edited.html()
    assert (
        html.index(f"{LABEL}arguments</div>")
        < html.index(f"{LABEL}diff</div>")
        < html.index(f"{LABEL}result</div>")
    )
    assert "<span>+y</span>" in html


def test_long_details_are_cut_with_a_count_of_what_was_left_out() -> None:
    exact, longer = card(status="done"), card(status="done")
    exact.result = ToolResult.ok("a" * 8000)
    longer.result = ToolResult.ok("b" * 8003)
    assert f"{PRE}{'a' * 8000}</pre>" in exact.html()
    assert f"{PRE}{'b' * 8000}\n… [3 more characters]</pre>" in longer.html()


def test_arguments_that_are_not_json_are_shown_as_python_writes_them() -> None:
    odd = card(input={"when": {1, 2}}, status="done")
    assert f"{PRE}{{&#x27;when&#x27;: {{1, 2}}}}</pre>" in odd.html()


def test_arguments_keep_non_ascii_text() -> None:
    assert "café" in card(input={"file_path": "café.md"}).html()


def test_images_sent_to_the_model_are_counted() -> None:
    from jupyter_agent.base.result import ImageContent

    shown = card(status="done")
    shown.result = ToolResult.ok("png", images=(ImageContent(media_type="image/png", data="AAAA"),))
    assert "<div>1 image(s) sent to the model</div>" in shown.html()


def task_card(*children: ToolCard) -> ToolCard:
    task = card("Task", "other", title="Task look around", status="done", input={"description": "look"})
    task.children = list(children)
    return task


def sub_call(name: str, title: str, status: Status = "done") -> ToolCard:
    return card(name, "read", title=title, status=status)


def test_a_task_card_lists_its_sub_agent_calls_one_line_each_under_its_own() -> None:
    task = task_card(sub_call("Read", "Read a.py"), sub_call("Grep", "Grep <b>", "running"))
    assert task.text() == "🔧 Task look around  [done]\n    🔍 Read a.py  [done]\n    🔍 Grep <b>  [running]"
    assert (
        '<details class="jp-agent-subcalls" style="margin:2px 0;"><summary style="font-size:11px;cursor:pointer;">'
        '2 sub-agent calls</summary><div style="font-size:11px;">🔍 Read a.py  [done]</div>'
        '<div style="font-size:11px;">🔍 Grep &lt;b&gt;  [running]</div></details>'
    ) in task.html()


def test_a_single_sub_agent_call_is_counted_in_the_singular() -> None:
    html = task_card(sub_call("Read", "Read a.py")).html()
    assert ">1 sub-agent call</summary>" in html


def test_a_card_without_sub_agent_calls_has_no_sub_call_list() -> None:
    assert "sub-agent" not in task_card().html()


def test_a_refused_call_stays_closed_and_calm_and_its_headline_says_why() -> None:
    """A refusal is an answer, not an error: the card is not opened or drawn red, and the reason shows in its
    headline, where a closed card can be read."""
    refused = card(
        "RunCode",
        "execute",
        title="RunCode print('ran')",
        status="denied",
        result=ToolResult.error(
            "DENIED", "DENIED: no one could approve RunCode print('ran'): no page answers"
        ),
    )
    html = refused.html()
    summary = html[html.index("<summary") : html.index("</summary>")]
    assert "no one could approve RunCode print(&#x27;ran&#x27;): no page answers" in summary
    assert " open " not in html.split(">", 1)[0] + " " and "error-color" not in html.split("<summary", 1)[0]
