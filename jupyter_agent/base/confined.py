"""The package's own file I/O, confined like the model's: one rule for every read, write and delete it makes on
its own behalf (project definitions and memory, settings, trust, undo, review, rewind, export, session files).

The rule: the path's real path, resolved at the moment of the I/O, lies inside one of the allowed `areas` (the
roots, or a definition's own folder). The file is then reached through that real path with no symlink followed
(`O_NOFOLLOW` on every directory from `/` and on the file itself), so a directory or file swapped for a link after
the check makes the I/O fail with `OUTSIDE_ROOTS` instead of landing outside. A write goes through
`atomic_write`, which walks the same way; a delete unlinks the name through its directory's handle, so a swapped
parent cannot redirect it.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Sequence
from pathlib import Path

from .errors import ToolError
from .sandbox import atomic_write, open_directory

_READ_FLAGS = os.O_RDONLY


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def inside(real: Path, areas: Sequence[Path]) -> bool:
    """Whether the real path `real` lies in one of `areas` (each taken at its real path now)."""
    return any(real == area or real.is_relative_to(area) for area in map(_real, areas))


def confined(path: Path, areas: Sequence[Path], *, exact: bool = False) -> Path:
    """`path`'s real path now, if it lies in one of `areas`; else `OUTSIDE_ROOTS` naming where it leads.

    `exact`: `path` is a real path recorded earlier (undo), and must still be one — a link anywhere on it now
    means it names another file than the one recorded, even inside the areas."""
    real = _real(path)
    if exact and real != path:
        raise ToolError(
            "OUTSIDE_ROOTS",
            f"'{path}' now leads to '{real}' through a symlink, so it is not the file that was recorded; "
            "nothing was read or changed — check what replaced it (a link, a checkout), then retry",
        )
    if inside(real, areas):
        return real
    named = ", ".join(f"'{area}'" for area in areas) or "none"
    linked = real != Path(os.path.abspath(path))
    via = f" (it leads to '{real}' through a symlink)" if linked else ""
    fix = (
        "replace the link with the file itself, or move it there" if linked else "add its folder to the roots"
    )
    raise ToolError(
        "OUTSIDE_ROOTS",
        f"the file '{path}' is outside the folders it may be in{via}; the package reads and writes "
        f"its own files only under {named} — {fix}",
    )


def _swapped(path: Path) -> ToolError:
    return ToolError(
        "OUTSIDE_ROOTS",
        f"'{path}' is (or passes through) a symlink that appeared after the path was checked; nothing was read "
        "or changed — check what replaced it, then retry",
    )


def open_confined(
    path: Path, areas: Sequence[Path], flags: int = _READ_FLAGS, mode: int = 0o600, *, exact: bool = False
) -> int:
    """A descriptor on `path` (its real path in `areas`), opened with `flags` and no symlink followed."""
    real = confined(path, areas, exact=exact)
    directory = open_directory(real.parent, create=bool(flags & os.O_CREAT))
    try:
        return os.open(real.name, flags | os.O_NOFOLLOW, mode, dir_fd=directory)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _swapped(real) from None
        raise
    finally:
        os.close(directory)


def read_confined(
    path: Path, areas: Sequence[Path], *, limit: int | None = None, exact: bool = False
) -> bytes:
    """The bytes of `path` (at most `limit`), read under the rule; FileNotFoundError when it is not there."""
    fd = open_confined(path, areas, exact=exact)
    with os.fdopen(fd, "rb") as handle:
        return handle.read() if limit is None else handle.read(limit)


def write_confined(
    path: Path, data: bytes, areas: Sequence[Path], *, make_below: Path | None = None, exact: bool = False
) -> Path:
    """Replace `path` (its real path in `areas`) with `data` atomically; the real path written."""
    real = confined(path, areas, exact=exact)
    atomic_write(real, data, make_below=make_below)
    return real


def unlink_confined(path: Path, areas: Sequence[Path], *, exact: bool = True) -> None:
    """Remove the file `path` names: its folder's real path must be in `areas` (and with `exact`, be its folder as
    written: no link on the way), and the name is unlinked through that folder's handle, reached with no link
    followed (a link named so is removed itself, never what it points at)."""
    parent = confined(path.parent, areas, exact=exact)
    directory = open_directory(parent, create=False)
    try:
        os.unlink(path.name, dir_fd=directory)
    finally:
        os.close(directory)
