"""The package's own reads, writes and deletes (`base.confined`) hold when a link is swapped in between the check
and the I/O: the check is simulated as passed (it ran before the swap), and the I/O itself, reaching the file
with no symlink followed, must still refuse — nothing outside is read, written or removed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jupyter_agent.base import confined
from jupyter_agent.base.confined import read_confined, unlink_confined, write_confined
from jupyter_agent.base.errors import ToolError


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    base = Path(os.path.realpath(tmp_path))
    (base / "root" / "sub").mkdir(parents=True)
    (base / "outside").mkdir()
    (base / "outside" / "secret.txt").write_text("outside\n")
    return base / "root", base / "outside"


@pytest.fixture
def checked_before_the_swap(monkeypatch: pytest.MonkeyPatch) -> None:
    """The realpath check saw the path as it was before the swap: as written."""
    monkeypatch.setattr(confined, "_real", lambda path: Path(os.path.abspath(path)))


def test_a_file_swapped_for_a_link_after_the_check_is_not_read(
    world: tuple[Path, Path], checked_before_the_swap: None
) -> None:
    root, outside = world
    (root / "sub" / "notes.md").symlink_to(outside / "secret.txt")
    with pytest.raises(ToolError) as refused:
        read_confined(root / "sub" / "notes.md", (root,))
    assert refused.value.code == "OUTSIDE_ROOTS" and "outside\n" not in refused.value.message


def test_a_folder_swapped_for_a_link_after_the_check_is_not_read_written_or_unlinked_through(
    world: tuple[Path, Path], checked_before_the_swap: None
) -> None:
    root, outside = world
    (root / "sub").rmdir()
    (root / "sub").symlink_to(outside)
    for act in (
        lambda: read_confined(root / "sub" / "secret.txt", (root,)),
        lambda: write_confined(root / "sub" / "secret.txt", b"mine\n", (root,)),
        lambda: unlink_confined(root / "sub" / "secret.txt", (root,)),
    ):
        with pytest.raises(ToolError) as refused:
            act()
        assert refused.value.code == "OUTSIDE_ROOTS"
    assert (outside / "secret.txt").read_text() == "outside\n"


def test_unlinking_a_link_removes_the_link_never_its_target(world: tuple[Path, Path]) -> None:
    root, outside = world
    (root / "sub" / "link.txt").symlink_to(outside / "secret.txt")
    unlink_confined(root / "sub" / "link.txt", (root,))
    assert not (root / "sub" / "link.txt").is_symlink()
    assert (outside / "secret.txt").read_text() == "outside\n"


def test_a_read_inside_the_areas_works_and_a_missing_file_is_file_not_found(world: tuple[Path, Path]) -> None:
    root, _ = world
    (root / "sub" / "a.txt").write_text("a\n")
    assert read_confined(root / "sub" / "a.txt", (root,)) == b"a\n"
    with pytest.raises(FileNotFoundError):
        read_confined(root / "nowhere" / "b.txt", (root,))
    assert not (root / "nowhere").exists()  # a read never makes a folder


def test_a_folder_swapped_while_the_delete_holds_it_open_does_not_redirect_the_unlink(
    world: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, outside = world
    (root / "sub" / "secret.txt").write_text("the agent's file\n")
    real_open = confined.open_directory

    def open_then_swap(path: Path, *, create: bool = True) -> int:
        fd = real_open(path, create=create)
        (root / "sub").rename(root / "moved")  # swapped after the walk reached it
        (root / "sub").symlink_to(outside)
        return fd

    monkeypatch.setattr(confined, "open_directory", open_then_swap)
    unlink_confined(root / "sub" / "secret.txt", (root,))
    assert (outside / "secret.txt").read_text() == "outside\n"
    assert not (root / "moved" / "secret.txt").exists()  # the folder that was checked lost the file
