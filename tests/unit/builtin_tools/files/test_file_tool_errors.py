"""Snapshots of the exact model-facing text of every error the file tools produce.

These strings are what the model reads to recover, so a change to one must be deliberate.
"""

from __future__ import annotations

import os
import random
import re
import stat
from pathlib import Path

import pytest
from dispatch_harness import file_harness
from filetools_kit import scrub

from jupyter_agent.tools import Limits


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "utils.py").write_text(
        "def load(path):\n    return open(path).read()\n\n\ndef save(path):\n    return None\n"
    )
    (root / "notes.md").write_text("alpha\nbeta\nalpha\n")
    (root / "big.log").write_text("x" * 300 + "\n")
    (root / "blob.bin").write_bytes(b"\x00\x01\x02" * 100)
    (root / "table.parquet").write_bytes(b"PAR1" + b"\x00" * 64)
    (root / "fake.png").write_text("not an image")
    (root / "analysis.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    (tmp_path / "outside.txt").write_text("secret\n")
    os.symlink(tmp_path / "outside.txt", root / "escape.txt")
    return root


CASES: list[tuple[str, str, dict[str, object], str]] = [
    (
        "a missing file names its near neighbours",
        "Read",
        {"file_path": "src/utils.pyy"},
        "FILE_NOT_FOUND: 'src/utils.pyy' does not exist (relative paths start at '<root>'); did you mean 'src/utils.py'?",
    ),
    (
        "a missing file in a missing directory says the directory is missing too",
        "Read",
        {"file_path": "nowhere/utils.py"},
        "FILE_NOT_FOUND: 'nowhere/utils.py' does not exist (relative paths start at '<root>'); "
        "its directory 'nowhere' does not exist either",
    ),
    (
        "reading a directory points to Glob",
        "Read",
        {"file_path": "src"},
        "IS_DIRECTORY: 'src' is a directory, not a file; use Glob with path 'src' to list it",
    ),
    (
        "a whole file over the cap asks for offset and limit",
        "Read",
        {"file_path": "big.log"},
        "FILE_TOO_LARGE: 'big.log' is 301 B, over the 256 B limit for reading a whole file; pass offset and limit "
        "to read a part (e.g. offset=1, limit=200), or Grep to find the lines you need",
    ),
    (
        "a binary file suggests looking at it from the kernel",
        "Read",
        {"file_path": "blob.bin"},
        "BINARY_FILE: 'blob.bin' is a binary file and can't be shown as text; inspect it from Python in the kernel "
        "instead (or Grep to search it)",
    ),
    (
        "a data file names the loader to use",
        "Read",
        {"file_path": "table.parquet"},
        "BINARY_FILE: 'table.parquet' is a binary file and can't be shown as text; load it in the kernel with "
        "pandas.read_parquet and look at it there",
    ),
    (
        "an image extension on something else is refused",
        "Read",
        {"file_path": "fake.png"},
        "BINARY_FILE: 'fake.png' has an image extension but is not an image the model can read: its 12 bytes are "
        "not a PNG, JPEG, GIF or WebP image (they start b'not an i'); check the file in the kernel (e.g. with "
        "PIL.Image.open)",
    ),
    (
        "dot-dot that escapes the root is refused",
        "Read",
        {"file_path": "../outside.txt"},
        "OUTSIDE_ROOTS: '<root>/../outside.txt' is outside the allowed roots; use a path under '<root>'".replace(
            "<root>/../outside.txt", "<tmp>/outside.txt"
        ),
    ),
    (
        "a symlink out of the root is refused and the message says where it leads",
        "Read",
        {"file_path": "escape.txt"},
        "OUTSIDE_ROOTS: '<root>/escape.txt' is outside the allowed roots (it resolves through a symlink to "
        "'<tmp>/outside.txt'); use a path under '<root>'",
    ),
    (
        "writing over a file that was never read asks for a Read",
        "Write",
        {"file_path": "notes.md", "content": "new\n"},
        "NOT_READ: 'notes.md' has not been read in this conversation; Read it first",
    ),
    (
        "editing a file that was never read asks for a Read",
        "Edit",
        {"file_path": "notes.md", "old_string": "beta", "new_string": "gamma"},
        "NOT_READ: 'notes.md' has not been read in this conversation; Read it first",
    ),
    (
        "an edit that changes nothing is refused",
        "Edit",
        {"file_path": "notes.md", "old_string": "beta", "new_string": "beta"},
        "NO_CHANGE: old_string and new_string are identical, so the edit would change nothing; pass the "
        "replacement text as new_string",
    ),
    (
        "notebooks are edited with NotebookEdit",
        "Edit",
        {"file_path": "analysis.ipynb", "old_string": "a", "new_string": "b"},
        "INVALID_ARGS: 'analysis.ipynb' is a Jupyter notebook; change its cells with NotebookEdit (Read shows the "
        "cell ids)",
    ),
    (
        "editing a missing file names its near neighbours",
        "Edit",
        {"file_path": "note.md", "old_string": "a", "new_string": "b"},
        "FILE_NOT_FOUND: 'note.md' does not exist (relative paths start at '<root>'); did you mean 'notes.md'?",
    ),
    (
        "Glob given a file as path asks for a directory",
        "Glob",
        {"pattern": "*.py", "path": "notes.md"},
        "INVALID_ARGS: path 'notes.md' is a file; pass the directory to search as path",
    ),
    (
        "Grep in a missing directory is FILE_NOT_FOUND",
        "Grep",
        {"pattern": "x", "path": "scr"},
        "FILE_NOT_FOUND: 'scr' does not exist (relative paths start at '<root>'); did you mean 'src'?",
    ),
    (
        "Grep with an unknown file type lists real ones",
        "Grep",
        {"pattern": "x", "type": "pythonn"},
        "INVALID_ARGS: unrecognized file type: pythonn; use a ripgrep type such as py, js, ts, md, json, yaml, "
        "or filter with glob instead",
    ),
]


@pytest.mark.parametrize(
    ("tool", "tool_input", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_error_text_is_pinned(project: Path, tool: str, tool_input: dict[str, object], expected: str) -> None:
    harness = file_harness(project, limits=Limits(max_file_bytes=256))
    result = harness.call(tool, tool_input)
    assert result.is_error
    text = scrub(result.content, project).replace(str(project.parent), "<tmp>")
    assert text == expected
    assert result.error_code == expected.split(":", 1)[0]


def test_a_file_changed_since_it_was_read_is_stale(project: Path) -> None:
    harness = file_harness(project)
    harness.read("notes.md")
    (project / "notes.md").write_text("someone else typed this\n")
    result = harness.call("Edit", file_path="notes.md", old_string="beta", new_string="gamma")
    assert result.content == (
        "STALE_READ: 'notes.md' changed since it was last read (the user or another program edited it); "
        "Read it again and redo the change on the current content"
    )


def test_text_not_found_shows_the_closest_lines_with_numbers(project: Path) -> None:
    harness = file_harness(project)
    harness.read("src/utils.py")
    result = harness.call(
        "Edit", file_path="src/utils.py", old_string="def load(p):\n    return open(p).read()", new_string="x"
    )
    assert result.content == (
        "TEXT_NOT_FOUND: old_string was not found in 'src/utils.py'. It must match the file exactly, including "
        "whitespace and indentation (the line numbers Read shows are not part of the file). The closest text is "
        "at line 1:\n"
        "     1\tdef load(path):\n"
        "     2\t    return open(path).read()\n"
        "Copy old_string from the file exactly (Read it again if it may have changed)."
    )


def test_text_not_found_says_when_only_whitespace_differs(project: Path) -> None:
    harness = file_harness(project)
    harness.read("src/utils.py")
    result = harness.call(
        "Edit",
        file_path="src/utils.py",
        old_string="def load(path):\n\treturn open(path).read()",
        new_string="x",
    )
    assert (
        "It does match if whitespace is ignored: check indentation (tabs vs spaces) and trailing spaces."
        in (result.content)
    )


def test_text_not_found_without_anything_similar_says_so(project: Path) -> None:
    harness = file_harness(project)
    harness.read("notes.md")
    result = harness.call("Edit", file_path="notes.md", old_string="zzzz qqqq", new_string="x")
    assert result.content == (
        "TEXT_NOT_FOUND: old_string was not found in 'notes.md'. It must match the file exactly, including "
        "whitespace and indentation (the line numbers Read shows are not part of the file). No similar lines were "
        "found; Read the file and copy old_string from it exactly."
    )


def test_multiple_matches_give_the_count_and_line_numbers(project: Path) -> None:
    harness = file_harness(project)
    harness.read("notes.md")
    result = harness.call("Edit", file_path="notes.md", old_string="alpha", new_string="omega")
    assert result.content == (
        "TEXT_MULTIPLE_MATCHES: old_string appears 2 times in 'notes.md' (at lines 1, 3); add surrounding lines to "
        "old_string to make it unique, or set replace_all to change every one"
    )


def test_empty_old_string_on_an_existing_file_is_refused(project: Path) -> None:
    harness = file_harness(project)
    harness.read("notes.md")
    result = harness.call("Edit", file_path="notes.md", old_string="", new_string="x")
    assert result.content == (
        "INVALID_ARGS: old_string is empty but 'notes.md' already exists and is not empty; an empty old_string only "
        "creates a new file. Pass the text to replace as old_string, or use Write to replace it all"
    )


def test_an_image_over_the_image_cap_is_too_large(project: Path) -> None:
    (project / "plot.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 2048)
    harness = file_harness(project, limits=Limits(max_image_bytes=1024))
    result = harness.call("Read", file_path="plot.png")
    assert result.content == (
        "FILE_TOO_LARGE: 'plot.png' is 2.0 KB, over the 1.0 KB limit for images; save a smaller copy "
        "(e.g. resized with PIL) and Read that"
    )


def test_a_fifo_is_not_read(project: Path) -> None:
    os.mkfifo(project / "pipe")
    assert stat.S_ISFIFO((project / "pipe").stat().st_mode)
    result = file_harness(project).call("Read", file_path="pipe")
    assert result.content == "BINARY_FILE: 'pipe' is not a regular file (a device, socket or pipe)"


def test_an_invalid_regex_is_explained(project: Path) -> None:
    result = file_harness(project).call("Grep", pattern="load(")
    assert result.error_code == "INVALID_ARGS"
    assert result.content.startswith(
        "INVALID_ARGS: pattern is not a valid regular expression (Rust regex syntax); escape special characters "
        "such as ( [ { . * with a backslash to match them literally. ripgrep said:\nrg: regex parse error:"
    )


def _fake_rg(tmp_path: Path, body: str) -> str:
    script = tmp_path / "fake-rg"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)
    return str(script)


def test_a_search_that_runs_too_long_times_out(project: Path, tmp_path: Path) -> None:
    # Real rg finishes these searches in milliseconds; a stand-in that hangs is the only way to reach the timeout.
    slow = _fake_rg(tmp_path, "sleep 30")
    harness = file_harness(project, limits=Limits(default_timeout=0.5), locate_rg=lambda: slow)
    result = harness.call("Grep", pattern="x")
    assert result.content == (
        "TIMEOUT: Grep timed out after 0.5 s; search a narrower path or add a glob or type filter"
    )


def test_a_ripgrep_failure_is_an_execution_error(project: Path, tmp_path: Path) -> None:
    # A stand-in for an rg that fails for a reason we don't recognise (real rg fails like this on I/O errors).
    broken = _fake_rg(tmp_path, "echo 'rg: something went wrong' >&2; exit 2")
    result = file_harness(project, locate_rg=lambda: broken).call("Grep", pattern="x")
    assert result.content == "EXECUTION_ERROR: Grep failed: rg: something went wrong"


def test_text_not_found_with_whitespace_only_differences_keeps_the_whole_message(project: Path) -> None:
    harness = file_harness(project)
    harness.read("notes.md")
    result = harness.call("Edit", file_path="notes.md", old_string="alpha\n  beta", new_string="x")
    assert result.content.startswith(
        "TEXT_NOT_FOUND: old_string was not found in 'notes.md'. It must match the file exactly, including "
        "whitespace and indentation (the line numbers Read shows are not part of the file). It does match if "
        "whitespace is ignored: check indentation (tabs vs spaces) and trailing spaces. The closest text is"
    )


def test_text_not_found_lists_every_close_candidate_separated(tmp_path: Path) -> None:
    (tmp_path / "cfg.py").write_text("rate = 1\nother = 0\nrate = 2\n")
    harness = file_harness(tmp_path)
    harness.read("cfg.py")
    result = harness.call("Edit", file_path="cfg.py", old_string="rate = 3", new_string="x")
    assert result.content.endswith(
        "The closest text is at lines 1, 3:\n"
        "     1\trate = 1\n"
        "---\n"
        "     3\trate = 2\n"
        "Copy old_string from the file exactly (Read it again if it may have changed)."
    )


def test_the_closest_text_starts_where_the_old_string_would_when_it_begins_with_blank_lines(
    tmp_path: Path,
) -> None:
    (tmp_path / "m.py").write_text("import os\n\n\ndef main():\n    run()\n")
    harness = file_harness(tmp_path)
    harness.read("m.py")
    result = harness.call("Edit", file_path="m.py", old_string="\ndef main(argv):\n    run()", new_string="x")
    assert (
        "The closest text is at line 3:\n     3\t\n     4\tdef main():\n     5\t    run()\n" in result.content
    )


def test_many_matches_list_twenty_lines_then_an_ellipsis(tmp_path: Path) -> None:
    (tmp_path / "twenty.py").write_text("x = 1\n" * 20)
    (tmp_path / "more.py").write_text("x = 1\n" * 21)
    harness = file_harness(tmp_path)
    for name in ("twenty.py", "more.py"):
        harness.read(name)
    twenty = harness.call("Edit", file_path="twenty.py", old_string="x = 1", new_string="y")
    more = harness.call("Edit", file_path="more.py", old_string="x = 1", new_string="y")
    lines = ", ".join(str(n) for n in range(1, 21))
    assert f"(at lines {lines}); add" in twenty.content
    assert f"(at lines {lines}, …); add" in more.content


def test_match_line_numbers_count_a_leading_blank_line(tmp_path: Path) -> None:
    (tmp_path / "b.md").write_text("\nitem\nitem\n")
    harness = file_harness(tmp_path)
    harness.read("b.md")
    result = harness.call("Edit", file_path="b.md", old_string="item", new_string="x")
    assert "(at lines 2, 3)" in result.content


def test_the_best_candidate_is_found_among_many_weak_ones(tmp_path: Path) -> None:
    weak = "".join(f"x{i} = compute(a)\n" for i in range(12))
    (tmp_path / "last.py").write_text(weak + "total = compute(row)\n")
    (tmp_path / "first.py").write_text("total = compute(row)\n" + weak)
    harness = file_harness(tmp_path)
    for name, line in (("last.py", 13), ("first.py", 1)):
        harness.read(name)
        result = harness.call("Edit", file_path=name, old_string="total = compute(rows)", new_string="x")
        assert f"The closest text is at line {line}:\n{line:>6}\ttotal = compute(row)\n" in result.content


def test_a_blank_old_string_that_is_not_in_the_file_is_text_not_found(project: Path) -> None:
    harness = file_harness(project)
    harness.read("notes.md")
    result = harness.call("Edit", file_path="notes.md", old_string="    ", new_string="x")
    assert result.error_code == "TEXT_NOT_FOUND"
    assert result.content.endswith("Read the file and copy old_string from it exactly.")


def test_the_working_directory_itself_is_shown_as_a_dot(project: Path) -> None:
    result = file_harness(project).call("Read", file_path=str(project))
    assert result.content == (
        "IS_DIRECTORY: '.' is a directory, not a file; use Glob with path '.' to list it"
    )


def test_a_file_under_another_root_is_shown_by_its_absolute_path(tmp_path: Path) -> None:
    work, data = tmp_path / "work", tmp_path / "data"
    work.mkdir()
    data.mkdir()
    harness = file_harness(work, roots=(work, data))
    result = harness.call("Read", file_path=str(data / "nothing-like-it.csv"))
    assert result.content == (
        f"FILE_NOT_FOUND: '{data / 'nothing-like-it.csv'}' does not exist (relative paths start at '{work}')"
    )


def test_a_missing_file_names_at_most_three_similar_neighbours(tmp_path: Path) -> None:
    for name in ("report1.csv", "report2.csv", "report3.csv", "report4.csv"):
        (tmp_path / name).write_text("x\n")
    result = file_harness(tmp_path).call("Read", file_path="report.csv")
    hint = result.content.split("did you mean ")[1]
    assert re.fullmatch(r"'report\d\.csv', 'report\d\.csv', 'report\d\.csv'\?", hint), hint


def _not_found(tmp_path: Path, text: str, old_string: str) -> str:
    (tmp_path / "f.py").write_text(text)
    harness = file_harness(tmp_path)
    harness.read("f.py")
    return harness.call("Edit", file_path="f.py", old_string=old_string, new_string="x").content


def test_a_whitespace_only_match_is_shown_at_its_own_line_also_below_a_leading_blank_line(
    tmp_path: Path,
) -> None:
    content = _not_found(tmp_path, "\nfirst = 1\nrate  =  2\n", "rate = 2")
    assert "It does match if whitespace is ignored" in content
    assert content.endswith(
        "at line 3:\n     3\trate  =  2\nCopy old_string from the file exactly (Read it again if it may have changed)."
    )


def test_whitespace_only_matches_are_shown_three_at_the_most_and_all_three_when_there_are_three(
    tmp_path: Path,
) -> None:
    three = _not_found(tmp_path, "a  =  1\nb = 0\na  =  1\na  =  1\n", "a = 1")
    assert "It does match if whitespace is ignored" in three
    assert "The closest text is at lines 1, 3, 4:\n" in three
    four = _not_found(tmp_path, "a  =  1\na  =  1\na  =  1\na  =  1\n", "a = 1")
    assert "It does match if whitespace is ignored" in four
    assert "The closest text is at lines 1, 2, 3:\n" in four


def test_an_old_string_of_4000_characters_is_still_matched_ignoring_whitespace(tmp_path: Path) -> None:
    """The whitespace-insensitive search is bounded (a regex per character); 4000 characters is inside the bound."""
    needle = "x = 1 " * 666 + "x = "
    assert len(needle) == 4000
    content = _not_found(tmp_path, "head\n" + needle.replace(" ", "  ") + "\n", needle)
    assert "It does match if whitespace is ignored" in content
    assert "at line 2:" in content


def test_a_near_miss_on_a_very_long_line_is_still_pointed_out(tmp_path: Path) -> None:
    row = "weights = [" + ", ".join(f"{i}.5" for i in range(1500)) + "]"
    content = _not_found(tmp_path, "import numpy\n\n" + row + "\n", row.replace("weights", "weight", 1))
    assert "The closest text is at line 3:" in content


def test_the_near_miss_is_found_among_many_lines_made_of_the_same_characters(tmp_path: Path) -> None:
    """The full comparison runs on the lines whose quick bound is best; scrambled lines have a good bound (the
    same characters) but no likeness, and must not crowd the real near miss out."""
    scrambled = [
        "".join(random.Random(i).sample("total = price * quantity", 18)) + f"zq{i}" for i in range(30)
    ]
    content = _not_found(
        tmp_path, "total = price * quantities\n" + "\n".join(scrambled) + "\n", "total = price * quantity"
    )
    assert "The closest text is at line 1:\n     1\ttotal = price * quantities\n" in content
