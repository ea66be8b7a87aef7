"""The approval card: what the model wrote (the call's title, the reason, the preview) is shown as text, never
as live HTML, while the cell waits and after the answer collapses it to one line."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output
from test_safe_html import assert_inert
from traitlets.config import Config

from jupyter_agent.tools.core import Preview
from jupyter_agent.tools.dispatch import ApprovalRequest, Approve
from jupyter_agent.tools.permissions import Rule
from jupyter_agent.ui.approval import WidgetApproval
from jupyter_agent.ui.channel import Ask

ATTACK = '<img src=x onerror="window.pwned=1">'


@pytest.fixture
def shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[InteractiveShell]:
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    config = Config()
    config.HistoryManager.enabled = False
    yield InteractiveShell.instance(config=config)
    InteractiveShell.clear_instance()


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
    card = WidgetApproval(ask=Ask(request=hostile_request(), reply=concurrent.futures.Future()))
    with capture_output():
        card.show()
    html_parts: list[str] = [w.value for w in card.widgets if type(w).__name__ == "HTML"]
    assert len(html_parts) == 2
    for html in html_parts:
        assert_inert(html)
    assert "mcp__srv__run &lt;img src=x onerror=&quot;window.pwned=1&quot;&gt;" in html_parts[0]
    assert "&lt;img" in html_parts[1]

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
