"""A call that fails inside its tool (a missing file, a stale read, text not found) keeps its one-line title, so
the card says which file it was about (`Edit utils.py  TEXT_NOT_FOUND`, not a bare `Edit`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from dispatch_harness import file_harness


@pytest.mark.parametrize(
    ("name", "fields", "code", "title"),
    [
        ("Read", {"file_path": "missing one.txt"}, "FILE_NOT_FOUND", "Read missing one.txt"),
        ("Write", {"file_path": "notes.md", "content": "x"}, "NOT_READ", "Write notes.md"),
        (
            "Edit",
            {"file_path": "notes.md", "old_string": "a", "new_string": "b"},
            "NOT_READ",
            "Edit notes.md",
        ),
        ("Glob", {"pattern": "*.py", "path": "nowhere"}, "FILE_NOT_FOUND", "Glob *.py in nowhere"),
    ],
)
def test_a_call_that_fails_in_its_tool_keeps_its_title(
    tmp_path: Path, name: str, fields: dict[str, Any], code: str, title: str
) -> None:
    (tmp_path / "notes.md").write_text("a\n")  # never read: writing it is refused (NOT_READ)

    dispatched = file_harness(tmp_path).dispatch(name, **fields)

    assert dispatched.result.error_code == code
    assert dispatched.title.startswith(title)
    assert (tmp_path / "notes.md").read_text() == "a\n"


def test_text_not_found_names_the_file_in_the_title(tmp_path: Path) -> None:
    (tmp_path / "utils.py").write_text("x = 1\n")
    tools = file_harness(tmp_path)
    tools.read("utils.py")

    dispatched = tools.dispatch("Edit", file_path="utils.py", old_string="y = 2", new_string="y = 3")

    assert dispatched.result.error_code == "TEXT_NOT_FOUND"
    assert dispatched.title.startswith("Edit utils.py")
