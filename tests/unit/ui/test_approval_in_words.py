"""An approval a person reads at a glance: the question in words, a new cell's diff without the diff tool's
bookkeeping, and a Deny drawn as an answer, not as an error."""

from __future__ import annotations

import difflib
from typing import Any

import pytest

from jupyter_agent.base.result import ToolResult
from jupyter_agent.permissions.policy import Rule
from jupyter_agent.tools.core import PendingCell, Preview
from jupyter_agent.tools.dispatch import ApprovalRequest
from jupyter_agent.ui.approval import question_in_words
from jupyter_agent.ui.cards import ToolCard
from jupyter_agent.ui.diff_view import diff_to_html

NOTEBOOK = "analysis.ipynb"


def asked(tool: str, given: dict[str, Any], *cells: PendingCell, title: str = "log line") -> ApprovalRequest:
    return ApprovalRequest(
        tool_use_id="toolu_1",
        tool=tool,
        title=title,
        input=given,
        preview=Preview(kind="diff", text="", cells=cells),
        reason="the mode asks",
        suggested_rule=Rule(tool),
    )


@pytest.mark.parametrize(
    ("request_", "words"),
    [
        (
            asked(
                "NotebookEdit",
                {"notebook_path": NOTEBOOK, "cell_id": "c3", "new_source": "df = df.dropna()"},
                PendingCell(notebook=NOTEBOOK, change="replace", cell_id="c3", before="# clean\ndf = load()"),
            ),
            "Edit cell c3 ('# clean') of analysis.ipynb?",
        ),
        (
            asked(
                "NotebookEdit", {"notebook_path": NOTEBOOK, "edit_mode": "insert", "cell_type": "markdown"}
            ),
            "Add a markdown cell to analysis.ipynb?",
        ),
        (asked("NotebookEdit", {"edit_mode": "delete", "cell_id": "c9"}), "Delete cell c9?"),
        (asked("Edit", {"file_path": "demo/sales_loader.py"}), "Edit demo/sales_loader.py?"),
        (asked("Write", {"file_path": "notes.md"}), "Write notes.md?"),
        (asked("Bash", {"command": "git push"}), "Run the command 'git push'?"),
        (asked("mcp__srv__run", {}, title="mcp__srv__run"), "Allow mcp__srv__run?"),
    ],
)
def test_the_question_is_asked_in_words(request_: ApprovalRequest, words: str) -> None:
    assert question_in_words(request_) == words


def test_a_new_cells_diff_shows_its_lines_and_none_of_the_diff_tools_bookkeeping() -> None:
    diff = "".join(difflib.unified_diff([], ["x = 1\n", "y = 2"], "a", "b"))
    diff += "\n\\ No newline at end of file\n"
    html = diff_to_html(diff)
    assert "No newline" not in html and "+++" not in html
    assert "+x = 1" in html and "+y = 2" in html


def test_a_denied_call_is_drawn_as_an_answer_not_as_an_error() -> None:
    denied = ToolCard(call_id="c", name="Bash", input={}, status="denied")
    denied.result = ToolResult.error("DENIED", "Bash: the user denied this call")
    failed = ToolCard(call_id="d", name="Bash", input={}, status="error")
    failed.result = ToolResult.error("FILE_NOT_FOUND", "no such file")
    assert "jp-error-color" not in denied.html()
    assert " open" not in denied.html().split(">", 1)[0]
    assert "jp-error-color" in failed.html()
