"""Edit: exact replacement, byte-exact round trips for CRLF/BOM/odd encodings, creation, and its result texts."""

from __future__ import annotations

from pathlib import Path

import pytest
from dispatch_harness import file_harness

from jupyter_agent.base.journal import FileChange

ROUND_TRIPS: list[tuple[str, bytes, str, str, bytes]] = [
    (
        "an LF-only old_string matches a CRLF file and the new lines get CRLF",
        b"def f():\r\n    return 1\r\n\r\nx = f()\r\n",
        "def f():\n    return 1\n",
        "def f():\n    # one\n    return 1\n",
        b"def f():\r\n    # one\r\n    return 1\r\n\r\nx = f()\r\n",
    ),
    (
        "a CRLF old_string matches an LF file and the new lines get LF",
        b"a\nb\nc\n",
        "a\r\nb",
        "A\r\nB",
        b"A\nB\nc\n",
    ),
    (
        "a UTF-8 BOM survives",
        b"\xef\xbb\xbfname = 'x'\nother = 1\n",
        "'x'",
        "'y'",
        b"\xef\xbb\xbfname = 'y'\nother = 1\n",
    ),
    (
        "a BOM and CRLF together survive",
        b"\xef\xbb\xbfa\r\nb\r\nc",
        "b\nc",
        "B\nC",
        b"\xef\xbb\xbfa\r\nB\r\nC",
    ),
    (
        "a file with mixed endings keeps the endings of untouched lines",
        b"one\r\ntwo\nthree\r\nfour\n",
        "three",
        "3\n3b",
        b"one\r\ntwo\n3\r\n3b\r\nfour\n",
    ),
    (
        "a replacement inside an LF stretch of a mixed file uses LF",
        b"one\r\ntwo\nthree\nfour\r\n",
        "two\nthree",
        "2\n3",
        b"one\r\n2\n3\nfour\r\n",
    ),
    (
        "bytes that are not UTF-8 elsewhere in the file are kept exactly",
        b"# caf\xe9 (latin-1)\nvalue = 1\n",
        "value = 1",
        "value = 2",
        b"# caf\xe9 (latin-1)\nvalue = 2\n",
    ),
    (
        "a UTF-16 file stays UTF-16",
        "x = 'ä'\ny = 1\n".encode("utf-16"),
        "y = 1",
        "y = 2",
        "x = 'ä'\ny = 2\n".encode("utf-16"),
    ),
    (
        "a file without a final newline still has none",
        b"a\r\nb",
        "b",
        "c",
        b"a\r\nc",
    ),
    (
        "an empty new_string deletes the text",
        b"keep\ndrop\nkeep\n",
        "drop\n",
        "",
        b"keep\nkeep\n",
    ),
]


@pytest.mark.parametrize(
    ("before", "old", "new", "after"), [c[1:] for c in ROUND_TRIPS], ids=[c[0] for c in ROUND_TRIPS]
)
def test_edits_round_trip_byte_exact_apart_from_the_change(
    tmp_path: Path, before: bytes, old: str, new: str, after: bytes
) -> None:
    (tmp_path / "f.txt").write_bytes(before)
    harness = file_harness(tmp_path)
    harness.read("f.txt")
    harness.ok("Edit", file_path="f.txt", old_string=old, new_string=new)
    assert (tmp_path / "f.txt").read_bytes() == after


def test_a_unique_edit_shows_the_changed_lines_numbered(tmp_path: Path) -> None:
    (tmp_path / "utils.py").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    harness = file_harness(tmp_path)
    harness.read("utils.py")
    result = harness.ok(
        "Edit", file_path="utils.py", old_string="line 5\n", new_string="line 5\nline 5b\nline 5c\n"
    )
    assert result.content == (
        "Edited 'utils.py' (+2). The changed lines now read:\n"
        "     3\tline 3\n     4\tline 4\n     5\tline 5\n     6\tline 5b\n     7\tline 5c\n     8\tline 6\n     9\tline 7"
    )
    assert result.summary == "Edited utils.py (+2)"
    assert result.diff is not None and result.diff.startswith(
        "--- a/utils.py\n+++ b/utils.py\n@@ -3,6 +3,8 @@"
    )


def test_the_summary_counts_added_and_removed_lines(tmp_path: Path) -> None:
    (tmp_path / "utils.py").write_text("def f(x):\n    return x\n")
    harness = file_harness(tmp_path)
    harness.read("utils.py")
    result = harness.ok(
        "Edit",
        file_path="utils.py",
        old_string="    return x\n",
        new_string="    if x is None:\n        return 0\n    return x + 1\n",
    )
    assert result.summary == "Edited utils.py (+3 −1)"


def test_replace_all_changes_every_occurrence_and_lists_where(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("foo = 1\nbar = foo\nprint(foo)\n")
    harness = file_harness(tmp_path)
    harness.read("a.py")
    result = harness.ok("Edit", file_path="a.py", old_string="foo", new_string="total", replace_all=True)
    assert (tmp_path / "a.py").read_text() == "total = 1\nbar = total\nprint(total)\n"
    assert result.content == "Edited 'a.py' (+3 −3): replaced 3 occurrences (they were at lines 1, 2, 3)."


def test_replace_all_with_a_single_occurrence_is_fine(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    harness = file_harness(tmp_path)
    harness.read("a.py")
    harness.ok("Edit", file_path="a.py", old_string="x", new_string="y", replace_all=True)
    assert (tmp_path / "a.py").read_text() == "y = 1\n"


def test_an_empty_old_string_creates_a_missing_file(tmp_path: Path) -> None:
    harness = file_harness(tmp_path)
    result = harness.ok("Edit", file_path="pkg/new.py", old_string="", new_string="print('hi')\n")
    assert (tmp_path / "pkg/new.py").read_text() == "print('hi')\n"
    assert result.content == "Created 'pkg/new.py' (1 lines)."
    assert result.summary == "Edited pkg/new.py (+1)"
    assert harness.ctx.journal.changes == [
        FileChange(
            path=(tmp_path / "pkg/new.py").resolve(),
            before=None,
            after=b"print('hi')\n",
            tool="Edit",
            call_id="toolu_1",
        )
    ]


def test_an_empty_old_string_fills_an_existing_empty_file_after_a_read(tmp_path: Path) -> None:
    (tmp_path / "empty.py").write_bytes(b"")
    harness = file_harness(tmp_path)
    harness.read("empty.py")
    result = harness.ok("Edit", file_path="empty.py", old_string="", new_string="x = 1\n")
    assert result.content == "Wrote the empty file 'empty.py' (1 lines)."
    assert (tmp_path / "empty.py").read_text() == "x = 1\n"


def test_consecutive_edits_work_without_reading_again(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a = 1\nb = 2\n")
    harness = file_harness(tmp_path)
    harness.read("a.py")
    harness.ok("Edit", file_path="a.py", old_string="a = 1", new_string="a = 10")
    harness.ok("Edit", file_path="a.py", old_string="b = 2", new_string="b = 20")
    assert (tmp_path / "a.py").read_text() == "a = 10\nb = 20\n"


def test_an_edit_after_someone_else_changed_the_file_is_refused_and_the_file_kept(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a = 1\n")
    harness = file_harness(tmp_path)
    harness.read("a.py")
    (tmp_path / "a.py").write_text("a = 1\n# user note\n")
    result = harness.call("Edit", file_path="a.py", old_string="a = 1", new_string="a = 2")
    assert result.error_code == "STALE_READ"
    assert (tmp_path / "a.py").read_text() == "a = 1\n# user note\n"


def test_a_binary_file_is_not_edited(tmp_path: Path) -> None:
    (tmp_path / "data.bin").write_bytes(b"\x00\x01abc")
    harness = file_harness(tmp_path)
    assert harness.call("Read", file_path="data.bin").error_code == "BINARY_FILE"
    result = harness.call("Edit", file_path="data.bin", old_string="abc", new_string="xyz")
    assert result.content == "BINARY_FILE: 'data.bin' is a binary file; Edit changes text files only"


def test_edit_is_an_edit_kind_tool_matched_by_path_rules() -> None:
    from jupyter_agent.builtin_tools.files import EditTool, WriteTool

    for tool in (EditTool(), WriteTool()):
        assert (tool.kind, tool.read_only, tool.annotations.destructive) == ("edit", False, True)
        assert (tool.rule_field, tool.rule_kind) == ("file_path", "path")


def test_a_same_size_user_change_to_a_big_file_is_refused_as_stale(tmp_path: Path) -> None:
    """A file over the whole-read cap is tracked by size and modification time, not content: a user change
    that keeps the size must still be caught, or the edit would overwrite it."""
    import os

    from jupyter_agent.tools import Limits

    log = tmp_path / "big.log"
    log.write_text("status = ok\n" + "x" * 300 + "\n")
    harness = file_harness(tmp_path, limits=Limits(max_file_bytes=256))
    harness.ok("Read", file_path="big.log", offset=1, limit=1)
    before = log.stat()
    log.write_text("status = no\n" + "x" * 300 + "\n")  # the user's change, same size
    os.utime(log, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
    assert log.stat().st_size == before.st_size
    result = harness.call("Edit", file_path="big.log", old_string="status = ok", new_string="status = done")
    assert result.error_code == "STALE_READ"
    assert log.read_text().startswith("status = no\n")


def test_a_file_exactly_at_the_cap_is_checked_by_content_even_when_its_time_is_put_back(
    tmp_path: Path,
) -> None:
    """Up to the cap a file can be read whole, so its content is what counts: a same-size change whose
    modification time was restored (`cp -p`, `touch -r`, a checkout) is still caught."""
    import os

    from jupyter_agent.tools import Limits

    notes = tmp_path / "notes.txt"
    notes.write_text("status = ok\n" + "x" * 243 + "\n")
    assert notes.stat().st_size == 256
    harness = file_harness(tmp_path, limits=Limits(max_file_bytes=256))
    harness.read("notes.txt")
    before = notes.stat()
    notes.write_text("status = no\n" + "x" * 243 + "\n")  # the user's change, same size, same time
    os.utime(notes, ns=(before.st_atime_ns, before.st_mtime_ns))
    result = harness.call("Edit", file_path="notes.txt", old_string="status = ok", new_string="status = done")
    assert result.error_code == "STALE_READ"
    assert notes.read_text().startswith("status = no\n")


def test_a_big_file_read_in_part_can_still_be_edited_when_nobody_changed_it(tmp_path: Path) -> None:
    from jupyter_agent.tools import Limits

    log = tmp_path / "big.log"
    log.write_text("status = ok\n" + "x" * 300 + "\n")
    harness = file_harness(tmp_path, limits=Limits(max_file_bytes=256))
    harness.ok("Read", file_path="big.log", offset=1, limit=1)
    harness.ok("Edit", file_path="big.log", old_string="status = ok", new_string="status = done")
    assert log.read_text().startswith("status = done\n")


def test_replace_all_does_not_count_overlapping_matches(tmp_path: Path) -> None:
    (tmp_path / "cmp.py").write_text("if a ==== b:\n    pass\n")
    harness = file_harness(tmp_path)
    harness.read("cmp.py")
    refused = harness.call("Edit", file_path="cmp.py", old_string="==", new_string="!=")
    assert refused.error_code == "TEXT_MULTIPLE_MATCHES"
    assert refused.content.startswith("TEXT_MULTIPLE_MATCHES: old_string appears 2 times in 'cmp.py'")
    harness.ok("Edit", file_path="cmp.py", old_string="==", new_string="!=", replace_all=True)
    assert (tmp_path / "cmp.py").read_text() == "if a !=!= b:\n    pass\n"


def test_a_one_line_match_replaced_by_several_lines_uses_the_files_line_breaks(tmp_path: Path) -> None:
    (tmp_path / "lf.py").write_bytes(b"a = 1\nb = 2\n")
    (tmp_path / "crlf.py").write_bytes(b"a = 1\r\nb = 2\r\n")
    harness = file_harness(tmp_path)
    for name in ("lf.py", "crlf.py"):
        harness.read(name)
        harness.ok("Edit", file_path=name, old_string="a = 1", new_string="a = 1\nc = 3")
    assert (tmp_path / "lf.py").read_bytes() == b"a = 1\nc = 3\nb = 2\n"
    assert (tmp_path / "crlf.py").read_bytes() == b"a = 1\r\nc = 3\r\nb = 2\r\n"


FLASK_CLI = Path(__file__).parents[3] / "fixtures" / "source" / "flask_cli.py.txt"


@pytest.mark.parametrize(
    ("old_string", "line"),
    [
        # Part of a long line, with a doubled space: similarity over whole lines pointed at line 1081 first.
        ("rule.host if host_matching  else rule.subdomain for rule", 1071),
        ("raise_if_not_found: t.Literal[False]  = ...", 237),
        ("command(*args,**kwargs)(f)", 425),
    ],
)
def test_the_hint_for_text_that_differs_only_in_whitespace_points_at_its_line(
    tmp_path: Path, old_string: str, line: int
) -> None:
    """flask's src/flask/cli.py (BSD-3-Clause, Pallets; see tests/fixtures/source/README.md)."""
    (tmp_path / "cli.py").write_bytes(FLASK_CLI.read_bytes())
    harness = file_harness(tmp_path)
    harness.read("cli.py")
    result = harness.call("Edit", file_path="cli.py", old_string=old_string, new_string="x")
    assert result.error_code == "TEXT_NOT_FOUND"
    assert "It does match if whitespace is ignored" in result.content
    first_shown = result.content.split(":\n", 1)[1].splitlines()[0]
    assert first_shown.split("\t")[0].strip() == str(line), result.content
