"""A directory swapped for a symlink between the path check and the write cannot redirect the write.

The real race needs a local process flipping the directory at the right instant; here the swap is made
deterministic by doing it right after `confine` returned (the check), before the tool writes.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from dispatch_harness import file_harness

from jupyter_agent.base.sandbox import atomic_write
from jupyter_agent.tools import (
    Sandbox,
    ToolError,
)


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "sub" / "deeper").mkdir(parents=True)
    (outside / "deeper").mkdir(parents=True)
    return root, outside


def swap_for_link(directory: Path, target: Path) -> None:
    """What a racer does: move the checked directory away and put a symlink to `target` in its place."""
    directory.rename(directory.with_name(directory.name + "-moved"))
    os.symlink(target, directory)


def everything_in(directory: Path) -> list[str]:
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*"))


@pytest.mark.parametrize("file_path", ["sub/new.txt", "sub/deeper/new.txt"])
def test_a_parent_swapped_for_a_symlink_after_the_check_does_not_redirect_a_write(
    places: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, file_path: str
) -> None:
    root, outside = places
    checked = Sandbox.confine

    def confine_then_swap(self: Sandbox, path: str) -> Path:
        real = checked(self, path)
        swap_for_link(root / "sub", outside)
        return real

    monkeypatch.setattr(Sandbox, "confine", confine_then_swap)
    result = file_harness(root).call("Write", file_path=file_path, content="pwned\n")
    assert result.error_code == "OUTSIDE_ROOTS", result.content
    assert "was replaced by a symlink after the path" in result.content
    assert everything_in(outside) == ["deeper"]  # no file, no temp file


def test_a_grandparent_swapped_before_the_write_is_refused_too(places: tuple[Path, Path]) -> None:
    root, outside = places
    target = Path(os.path.realpath(root)) / "sub" / "deeper" / "f.txt"
    swap_for_link(root / "sub", outside)
    with pytest.raises(ToolError, match="was replaced by a symlink"):
        atomic_write(target, b"pwned\n")
    assert everything_in(outside) == ["deeper"]


def test_missing_directories_are_still_created(places: tuple[Path, Path]) -> None:
    root, _ = places
    target = Path(os.path.realpath(root)) / "a" / "b" / "f.txt"
    atomic_write(target, b"ok\n")
    assert target.read_bytes() == b"ok\n"
    assert everything_in(target.parent) == ["f.txt"]
