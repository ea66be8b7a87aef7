"""Write: creates with parents, replaces only what was read, keeps EOL/encoding, journals, previews a diff."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from dispatch_harness import file_harness

from jupyter_agent.base.journal import FileChange
from jupyter_agent.tools import (
    Approval,
    ApprovalRequest,
    PermissionPolicy,
    Reject,
)


def test_a_new_file_is_created_with_its_parent_directories(tmp_path: Path) -> None:
    harness = file_harness(tmp_path)
    result = harness.ok("Write", file_path="docs/notes/todo.md", content="one\ntwo\n")
    assert (tmp_path / "docs/notes/todo.md").read_bytes() == b"one\ntwo\n"
    assert result.content == "Created 'docs/notes/todo.md' (2 lines)."
    assert result.summary == "Wrote docs/notes/todo.md (+2)"
    assert result.diff == "--- a/docs/notes/todo.md\n+++ b/docs/notes/todo.md\n@@ -0,0 +1,2 @@\n+one\n+two\n"


def test_replacing_a_read_file_reports_the_diff_counts(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("a\nb\nc\n")
    harness = file_harness(tmp_path)
    harness.read("notes.md")
    result = harness.ok("Write", file_path="notes.md", content="a\nB\nc\nd\n")
    assert result.content == "Replaced the content of 'notes.md' (+2 −1 lines)."
    assert result.summary == "Wrote notes.md (+2 −1)"
    assert (tmp_path / "notes.md").read_text() == "a\nB\nc\nd\n"


def test_consecutive_writes_need_no_new_read(tmp_path: Path) -> None:
    harness = file_harness(tmp_path)
    harness.ok("Write", file_path="n.txt", content="1\n")
    harness.ok("Write", file_path="n.txt", content="2\n")
    harness.ok("Edit", file_path="n.txt", old_string="2", new_string="3")
    assert (tmp_path / "n.txt").read_text() == "3\n"


def test_writing_the_same_content_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "same.txt").write_text("x\n")
    harness = file_harness(tmp_path)
    harness.read("same.txt")
    before = (tmp_path / "same.txt").stat().st_mtime_ns
    result = harness.ok("Write", file_path="same.txt", content="x\n")
    assert result.content == "'same.txt' already has exactly this content; nothing was written."
    assert (tmp_path / "same.txt").stat().st_mtime_ns == before
    assert harness.ctx.journal.changes == []


ENCODING_CASES = [
    ("a CRLF file keeps CRLF when the model writes LF", b"a\r\nb\r\n", "a\nc\n", b"a\r\nc\r\n"),
    ("content that already has CRLF is written as given", b"a\r\nb\r\n", "x\r\ny\n", b"x\r\ny\n"),
    ("an LF file stays LF", b"a\nb\n", "z\n", b"z\n"),
    ("a UTF-8 BOM is kept", b"\xef\xbb\xbfold\n", "new\n", b"\xef\xbb\xbfnew\n"),
    ("a UTF-16 file stays UTF-16", "old\n".encode("utf-16"), "ñew\n", "ñew\n".encode("utf-16")),
]


@pytest.mark.parametrize(
    ("before", "content", "after"), [c[1:] for c in ENCODING_CASES], ids=[c[0] for c in ENCODING_CASES]
)
def test_replacing_keeps_the_files_line_endings_and_encoding(
    tmp_path: Path, before: bytes, content: str, after: bytes
) -> None:
    (tmp_path / "f.txt").write_bytes(before)
    harness = file_harness(tmp_path)
    harness.read("f.txt")
    harness.ok("Write", file_path="f.txt", content=content)
    assert (tmp_path / "f.txt").read_bytes() == after


def test_every_write_is_journaled_for_undo(tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_bytes(b"before\n")
    harness = file_harness(tmp_path)
    harness.read("old.txt")
    harness.ok("Write", file_path="old.txt", content="after\n")
    harness.ok("Write", file_path="new.txt", content="fresh\n")
    assert harness.ctx.journal.changes == [
        FileChange(
            path=(tmp_path / "old.txt").resolve(),
            before=b"before\n",
            after=b"after\n",
            tool="Write",
            call_id="toolu_1",
        ),
        FileChange(
            path=(tmp_path / "new.txt").resolve(),
            before=None,
            after=b"fresh\n",
            tool="Write",
            call_id="toolu_1",
        ),
    ]


def test_the_file_keeps_its_permission_bits(tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text("echo 1\n")
    script.chmod(0o750)
    harness = file_harness(tmp_path)
    harness.read("run.sh")
    harness.ok("Write", file_path="run.sh", content="echo 2\n")
    assert script.stat().st_mode & 0o777 == 0o750


def test_writing_through_a_symlink_inside_the_root_changes_the_target_and_keeps_the_link(
    tmp_path: Path,
) -> None:
    (tmp_path / "real.txt").write_text("v1\n")
    os.symlink(tmp_path / "real.txt", tmp_path / "link.txt")
    harness = file_harness(tmp_path)
    harness.read("link.txt")
    harness.ok("Write", file_path="link.txt", content="v2\n")
    assert (tmp_path / "link.txt").is_symlink()
    assert (tmp_path / "real.txt").read_text() == "v2\n"


def test_a_symlink_pointing_outside_the_root_is_refused_for_read_and_write(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("keep\n")
    os.symlink(tmp_path / "secret.txt", root / "leak.txt")
    os.symlink(tmp_path, root / "up")
    harness = file_harness(root)
    for name, tool_input in [
        ("Read", {"file_path": "leak.txt"}),
        ("Write", {"file_path": "leak.txt", "content": "gone\n"}),
        ("Write", {"file_path": "up/secret.txt", "content": "gone\n"}),
        ("Write", {"file_path": "up/new.txt", "content": "planted\n"}),
        ("Edit", {"file_path": "up/secret.txt", "old_string": "keep", "new_string": "gone"}),
    ]:
        assert harness.call(name, tool_input).error_code == "OUTSIDE_ROOTS", (name, tool_input)
    assert (tmp_path / "secret.txt").read_text() == "keep\n"
    assert not (tmp_path / "new.txt").exists()


def test_writing_to_a_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    assert file_harness(tmp_path).call("Write", file_path="d", content="x").error_code == "IS_DIRECTORY"


def test_the_approval_shows_the_diff_before_anything_is_written(tmp_path: Path) -> None:
    (tmp_path / "cfg.py").write_text("DEBUG = False\n")
    harness = file_harness(tmp_path)
    harness.read("cfg.py")
    asked: list[ApprovalRequest] = []

    async def approver(request: ApprovalRequest) -> Approval:
        asked.append(request)
        assert (tmp_path / "cfg.py").read_text() == "DEBUG = False\n"
        return Reject(message="not now")

    asking = harness.but(policy=PermissionPolicy(mode="default"), approver=approver)
    result = asking.call("Write", file_path="cfg.py", content="DEBUG = True\n")
    assert result.error_code == "DENIED"
    (request,) = asked
    assert request.title == "Write cfg.py"
    assert request.preview.kind == "diff"
    assert request.preview.text == "--- a/cfg.py\n+++ b/cfg.py\n@@ -1 +1 @@\n-DEBUG = False\n+DEBUG = True\n"
    assert (tmp_path / "cfg.py").read_text() == "DEBUG = False\n"


def test_a_stale_write_fails_before_anyone_is_asked(tmp_path: Path) -> None:
    (tmp_path / "cfg.py").write_text("A = 1\n")
    asked: list[ApprovalRequest] = []

    async def approver(request: ApprovalRequest) -> Approval:
        asked.append(request)
        return Reject()

    harness = file_harness(tmp_path, mode="default", approver=approver)
    assert harness.call("Write", file_path="cfg.py", content="A = 2\n").error_code == "NOT_READ"
    assert asked == []


def test_path_rules_like_edit_notebooks_glob_apply_to_write_and_edit(tmp_path: Path) -> None:
    (tmp_path / "notebooks").mkdir()
    harness = file_harness(tmp_path, mode="default", allow=["Write(notebooks/**)"])

    def run(path: str) -> str | None:
        return harness.call("Write", file_path=path, content="x\n").error_code

    assert run("notebooks/deep/a.py") is None
    assert run(str(tmp_path / "notebooks" / "b.py")) is None
    assert run("elsewhere.py") == "DENIED"


def test_a_binary_file_the_model_tried_to_read_can_be_replaced(tmp_path: Path) -> None:
    (tmp_path / "model.bin").write_bytes(b"\x00\x00old")
    harness = file_harness(tmp_path)
    assert harness.call("Read", file_path="model.bin").error_code == "BINARY_FILE"
    harness.ok("Write", file_path="model.bin", content="text now\n")
    assert (tmp_path / "model.bin").read_bytes() == b"text now\n"
