"""The file tools at the edges a model reaches: a last line without a newline past the end, Claude Code's
`head_limit: 0`, and what an unknown-field error tells the model to use instead."""

from __future__ import annotations

from pathlib import Path

import pytest
from dispatch_harness import file_harness

from jupyter_agent.tools import Limits


@pytest.mark.parametrize(
    ("data", "lines"),
    [
        (b"a\nb\nc", 3),
        (b"a\r\nb\r\nc", 3),
        (b"a\nb\nc\n", 3),
        (b"one line, old Mac endings\ra\rb", 1),
        (b"no newline at all", 1),
    ],
)
@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_an_offset_past_the_end_counts_a_last_line_without_a_newline(
    tmp_path: Path, data: bytes, lines: int, streamed: bool
) -> None:
    (tmp_path / "f.txt").write_bytes(data)
    limits = Limits(max_file_bytes=4) if streamed else Limits()  # over the cap: read by seeking, not whole
    tools = file_harness(tmp_path, limits=limits)

    past = tools.ok("Read", file_path="f.txt", offset=lines + 5, limit=10)
    assert f"has {lines} lines" in past.content
    assert f"Use an offset from 1 to {lines}." in past.content

    last = tools.ok("Read", file_path="f.txt", offset=lines, limit=10)  # the offset it suggests works
    assert f"{lines:>6}\t" in last.content


def test_head_limit_zero_means_no_limit_as_in_claude_code(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("".join(f"TODO {n}\n" for n in range(30)))
    tools = file_harness(tmp_path)

    result = tools.ok("Grep", pattern="TODO", output_mode="content", head_limit=0)

    assert result.content.count("TODO") == 30
    assert "Showing" not in result.content


def test_an_unknown_grep_field_lists_the_names_the_schema_shows(tmp_path: Path) -> None:
    tools = file_harness(tmp_path)

    result = tools.call("Grep", pattern="x", page=3)

    assert result.error_code == "INVALID_ARGS"
    allowed = result.content.split("allowed fields: ", 1)[1]
    for name in ("-B", "-A", "-C", "-n", "-i", "head_limit", "offset"):
        assert name in allowed.split(", ") or f"{name})" in allowed
    for internal in ("before", "after", "context", "line_numbers", "ignore_case"):
        assert internal not in allowed
