"""MultiEdit: edits in order, all or nothing (a failing edit leaves the file byte-identical), one diff, one undo step."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from dispatch_harness import Approvals, ToolHarness, file_harness

from jupyter_agent.base.journal import FileChange, RunJournal
from jupyter_agent.builtin_tools.files import MultiEditTool
from jupyter_agent.tools import Approve, PermissionPolicy
from jupyter_agent.tools.scope import RunScope
from jupyter_agent.undo.run import undo_run

SOURCE = b"def load(path):\r\n    data = open(path).read()\r\n    return data\r\n\r\nTOTAL = 1\r\n"


def _file(tmp_path: Path) -> tuple[ToolHarness, Path]:
    path = tmp_path / "loader.py"
    path.write_bytes(SOURCE)
    harness = file_harness(tmp_path)
    harness.read("loader.py")
    return harness, path


def _asking(harness: ToolHarness) -> tuple[ToolHarness, Approvals]:
    """The same files in default mode, with an approver that approves and remembers what it was asked."""
    approvals = Approvals(Approve())
    return harness.but(policy=PermissionPolicy(mode="default"), approver=approvals), approvals


def test_edits_apply_in_order_each_to_the_result_of_the_ones_before(tmp_path: Path) -> None:
    harness, path = _file(tmp_path)
    result = harness.ok(
        "MultiEdit",
        file_path="loader.py",
        edits=[
            {"old_string": "def load(path):", "new_string": "def load(path, encoding):"},
            {"old_string": "open(path)", "new_string": "open(path, encoding=encoding)"},
            # this one only matches text the previous edit wrote
            {"old_string": "encoding=encoding)", "new_string": "encoding=encoding or 'utf-8')"},
            {"old_string": "TOTAL", "new_string": "COUNT", "replace_all": True},
        ],
    )
    assert path.read_bytes() == (
        b"def load(path, encoding):\r\n    data = open(path, encoding=encoding or 'utf-8').read()\r\n"
        b"    return data\r\n\r\nCOUNT = 1\r\n"
    )
    assert result.content.startswith("Edited 'loader.py' with 4 edits (+3 −3):\n--- a/loader.py")
    assert result.summary == "Edited loader.py (4 edits, +3 −3)"


def test_a_failing_edit_leaves_the_file_byte_identical_and_says_which_edit_and_why(tmp_path: Path) -> None:
    harness, path = _file(tmp_path)
    stat_before = path.stat()
    result = harness.call(
        "MultiEdit",
        file_path="loader.py",
        edits=[
            {"old_string": "def load(path):", "new_string": "def load(p):"},
            {"old_string": "return data", "new_string": "return data.strip()"},
            {"old_string": "no such text", "new_string": "x"},
        ],
    )
    assert result.is_error and result.error_code == "TEXT_NOT_FOUND"
    assert result.content.startswith(
        "TEXT_NOT_FOUND: edit 3 of 3 failed (checked against the text as edits 1–2 left it): old_string was not found in 'loader.py'"
    )
    assert result.content.endswith("No edit was applied; 'loader.py' is unchanged")
    assert path.read_bytes() == SOURCE
    assert path.stat().st_mtime_ns == stat_before.st_mtime_ns
    assert harness.ctx.journal.changes == []


def test_a_non_unique_or_no_op_edit_fails_the_whole_call(tmp_path: Path) -> None:
    harness, path = _file(tmp_path)
    ambiguous = harness.call(
        "MultiEdit",
        file_path="loader.py",
        edits=[{"old_string": "TOTAL", "new_string": "T"}, {"old_string": "path", "new_string": "p"}],
    )
    assert ambiguous.error_code == "TEXT_MULTIPLE_MATCHES"
    assert ambiguous.content.startswith(
        "TEXT_MULTIPLE_MATCHES: edit 2 of 2 failed (checked against the text as edit 1 left it): "
        "old_string appears 2 times"
    )
    no_op = harness.call(
        "MultiEdit", file_path="loader.py", edits=[{"old_string": "TOTAL", "new_string": "TOTAL"}]
    )
    assert no_op.error_code == "NO_CHANGE"
    assert no_op.content.startswith("NO_CHANGE: edit 1 of 1 failed: old_string and new_string are identical")
    assert path.read_bytes() == SOURCE


def test_an_unread_file_is_refused_as_not_read(tmp_path: Path) -> None:
    (tmp_path / "x.py").write_text("a = 1\n")
    result = file_harness(tmp_path).call(
        "MultiEdit", file_path="x.py", edits=[{"old_string": "a", "new_string": "b"}]
    )
    assert result.error_code == "NOT_READ"
    assert (tmp_path / "x.py").read_text() == "a = 1\n"


def test_an_empty_first_old_string_creates_the_file_and_later_edits_apply_to_it(tmp_path: Path) -> None:
    harness = file_harness(tmp_path)
    harness.ok(
        "MultiEdit",
        file_path="pkg/new.py",
        edits=[
            {"old_string": "", "new_string": "A = 1\nB = 2\n"},
            {"old_string": "B = 2", "new_string": "B = 3"},
        ],
    )
    assert (tmp_path / "pkg/new.py").read_text() == "A = 1\nB = 3\n"
    refused = harness.call(
        "MultiEdit", file_path="pkg/new.py", edits=[{"old_string": "", "new_string": "again"}]
    )
    assert refused.error_code == "INVALID_ARGS" and "edit 1 of 1 failed" in refused.content


def test_edits_must_not_be_empty(tmp_path: Path) -> None:
    result = file_harness(tmp_path).call("MultiEdit", file_path="x.py", edits=[])
    assert result.error_code == "INVALID_ARGS"
    assert "/edits" in result.content


def test_one_approval_shows_one_diff_of_all_edits_and_one_undo_step_reverts_them(tmp_path: Path) -> None:
    harness, path = _file(tmp_path)
    asking, approvals = _asking(harness)
    journal = RunJournal(run_id=1)
    harness.ctx.run = RunScope(journal=journal)
    edits: list[dict[str, Any]] = [
        {"old_string": "TOTAL = 1", "new_string": "TOTAL = 2"},
        {"old_string": "return data", "new_string": "return data.strip()"},
    ]
    result = asking.call("MultiEdit", file_path="loader.py", edits=edits)
    assert not result.is_error, result.content
    assert len(approvals.requests) == 1
    preview = approvals.requests[0].preview
    assert preview.kind == "diff"
    assert "-    return data\n+    return data.strip()\n" in preview.text
    assert "-TOTAL = 1\n+TOTAL = 2\n" in preview.text
    assert len(journal.changes) == 1
    change = journal.changes[0]
    assert isinstance(change, FileChange) and change.tool == "MultiEdit"
    report = asyncio.run(undo_run(journal, harness.ctx))
    assert report == "undo run 1:\n  restored loader.py"
    assert path.read_bytes() == SOURCE


def test_a_call_that_would_fail_fails_before_anyone_is_asked(tmp_path: Path) -> None:
    harness, path = _file(tmp_path)
    asking, approvals = _asking(harness)
    result = asking.call("MultiEdit", file_path="loader.py", edits=[{"old_string": "zz", "new_string": "y"}])
    assert result.error_code == "TEXT_NOT_FOUND"
    assert approvals.requests == []
    assert path.read_bytes() == SOURCE


def test_the_definition_the_model_sees_is_pinned() -> None:
    param = MultiEditTool().to_param()
    assert param["name"] == "MultiEdit"
    assert param["input_schema"] == {
        "$defs": {
            "EditOperation": {
                "additionalProperties": False,
                "properties": {
                    "old_string": {
                        "description": "The exact text to replace (empty only in the first edit, to create a new file).",
                        "type": "string",
                    },
                    "new_string": {
                        "description": "The text to put in its place (must differ from old_string).",
                        "type": "string",
                    },
                    "replace_all": {
                        "default": False,
                        "description": "Replace every occurrence of old_string instead of requiring exactly one.",
                        "type": "boolean",
                    },
                },
                "required": ["old_string", "new_string"],
                "type": "object",
            }
        },
        "additionalProperties": False,
        "properties": {
            "file_path": {
                "description": "The file to change: absolute, or relative to the working directory.",
                "type": "string",
            },
            "edits": {
                "description": "The replacements, applied in order to the file's text.",
                "items": {"$ref": "#/$defs/EditOperation"},
                "minItems": 1,
                "type": "array",
            },
        },
        "required": ["file_path", "edits"],
        "type": "object",
    }
    assert param["description"].startswith("Make several exact string replacements in one file at once.")
