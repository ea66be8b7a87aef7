"""What `atomic_write` leaves on disk: the modes of new files and directories, a private temp file named
after the target, nothing left behind when the write fails, and never a write through a planted file."""

from __future__ import annotations

import fcntl
import os
import re
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from jupyter_agent.base.errors import ToolError
from jupyter_agent.base.sandbox import atomic_write


@pytest.fixture
def umask_022() -> Iterator[None]:
    """A known umask, so the expected modes are fixed numbers."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def real_dir(tmp_path: Path) -> Path:
    return Path(os.path.realpath(tmp_path))


def test_a_new_file_gets_read_write_for_all_minus_the_umask(tmp_path: Path, umask_022: None) -> None:
    target = real_dir(tmp_path) / "new.txt"
    atomic_write(target, b"x\n")
    assert mode_of(target) == 0o644
    assert os.umask(0o022) == 0o022  # the umask read on the way is put back


def test_directories_made_on_the_way_get_the_usual_permissions(tmp_path: Path, umask_022: None) -> None:
    target = real_dir(tmp_path) / "made" / "deeper" / "new.txt"
    atomic_write(target, b"x\n")
    assert mode_of(target.parent.parent) == 0o755
    assert mode_of(target.parent) == 0o755


def test_a_symlink_at_the_target_name_is_replaced_by_a_new_file_not_given_its_targets_mode(
    tmp_path: Path, umask_022: None
) -> None:
    """Only a race puts a link there (callers pass the real path); the link's target lends nothing."""
    base = real_dir(tmp_path)
    elsewhere = base / "elsewhere.txt"
    elsewhere.write_bytes(b"keep\n")
    elsewhere.chmod(0o640)
    link = base / "out.txt"
    link.symlink_to(elsewhere)
    atomic_write(link, b"new\n")
    assert not link.is_symlink()
    assert link.read_bytes() == b"new\n"
    assert mode_of(link) == 0o644
    assert elsewhere.read_bytes() == b"keep\n"


PID = os.getpid()
TEMP_NAME = re.compile(rf"^\.results\.csv\.{os.getpid()}-[0-9a-f]{{8}}\.jupyter-agent\.tmp$")


def test_the_data_goes_to_a_private_hidden_temp_file_next_to_the_target_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen at the moment the final mode is applied: one temp file, named after the target, readable by its
    owner only until then, and not inherited by commands started meanwhile (close-on-exec)."""
    base = real_dir(tmp_path)
    target = base / "results.csv"
    target.write_bytes(b"old\n")
    target.chmod(0o644)
    seen: list[tuple[list[str], int, bool]] = []
    real_fchmod = os.fchmod

    def watch_fchmod(fd: int, mode: int) -> None:
        temps = sorted(p.name for p in base.iterdir() if p.name != "results.csv")
        cloexec = bool(fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC)
        seen.append((temps, stat.S_IMODE(os.fstat(fd).st_mode), cloexec))
        real_fchmod(fd, mode)

    monkeypatch.setattr(os, "fchmod", watch_fchmod)
    atomic_write(target, b"new\n")
    [(temps, mode_before, cloexec)] = seen
    assert len(temps) == 1 and TEMP_NAME.match(temps[0]), temps
    assert mode_before == 0o600
    assert cloexec
    assert target.read_bytes() == b"new\n"
    assert mode_of(target) == 0o644
    assert sorted(p.name for p in base.iterdir()) == ["results.csv"]


def test_a_failed_write_leaves_no_temp_file(tmp_path: Path) -> None:
    base = real_dir(tmp_path)
    occupied = base / "report"
    (occupied / "inside").mkdir(parents=True)  # a non-empty directory: the rename onto it fails
    with pytest.raises(IsADirectoryError):
        atomic_write(occupied, b"x\n")
    assert sorted(p.name for p in base.iterdir()) == ["report"]
    assert [p.name for p in occupied.iterdir()] == ["inside"]


def test_a_planted_file_or_link_with_the_temp_name_is_never_written_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Temp names are random; a name that is taken (even by a symlink to a file outside) is skipped."""
    base = real_dir(tmp_path)
    victim = base / "victim.txt"
    victim.write_bytes(b"untouched\n")
    (base / f".notes.md.{PID}-aaaaaaaa.jupyter-agent.tmp").symlink_to(victim)
    (base / f".notes.md.{PID}-bbbbbbbb.jupyter-agent.tmp").write_bytes(b"someone else's\n")
    names = iter(["aaaaaaaa", "bbbbbbbb", "cccccccc"])

    def next_name(nbytes: int | None = None) -> str:
        return next(names)

    monkeypatch.setattr(secrets, "token_hex", next_name)
    atomic_write(base / "notes.md", b"mine\n")
    assert (base / "notes.md").read_bytes() == b"mine\n"
    assert victim.read_bytes() == b"untouched\n"
    assert (base / f".notes.md.{PID}-bbbbbbbb.jupyter-agent.tmp").read_bytes() == b"someone else's\n"
    assert not (base / f".notes.md.{PID}-cccccccc.jupyter-agent.tmp").exists()


def test_when_every_temp_name_is_taken_the_write_fails_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = real_dir(tmp_path)
    (base / f".notes.md.{PID}-aaaaaaaa.jupyter-agent.tmp").write_bytes(b"taken\n")

    def same_name(nbytes: int | None = None) -> str:
        return "aaaaaaaa"

    monkeypatch.setattr(secrets, "token_hex", same_name)
    with pytest.raises(FileExistsError, match=re.escape("no free temp file name next to 'notes.md'")):
        atomic_write(base / "notes.md", b"mine\n")
    assert not (base / "notes.md").exists()


def test_a_relative_path_is_a_programming_error_that_names_its_directory() -> None:
    with pytest.raises(ValueError, match="atomic_write needs an absolute real path, got 'notes'"):
        atomic_write(Path("notes/x.md"), b"x\n")


def test_a_directory_swapped_for_a_symlink_is_refused_with_what_happened_and_what_to_do(
    tmp_path: Path,
) -> None:
    base = real_dir(tmp_path)
    (base / "outside").mkdir()
    (base / "project").symlink_to(base / "outside")  # was a directory when the path was checked
    with pytest.raises(ToolError) as refused:
        atomic_write(base / "project" / "notes.md", b"x\n")
    assert refused.value.code == "OUTSIDE_ROOTS"
    assert refused.value.message == (
        f"'{base / 'project'}' was replaced by a symlink after the path '{base / 'project'}' was checked; "
        "nothing was read or written through it — check what changed the directory, then retry"
    )
    assert list((base / "outside").iterdir()) == []
