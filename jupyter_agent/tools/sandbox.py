"""Paths, writes and limits for every tool, written once: no tool repeats path or size logic."""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .errors import ToolError


@dataclass(frozen=True, kw_only=True)
class Limits:
    """Caps that keep one tool call from flooding the model's context or the machine."""

    max_file_bytes: int = 256 * 1024
    max_read_lines: int = 2000
    max_line_chars: int = 2000
    max_output_chars: int = 30_000
    max_image_bytes: int = 5 * 1024 * 1024
    default_timeout: float = 120.0
    max_timeout: float = 600.0
    max_glob_results: int = 100


def _refuse_nul(text: str) -> None:
    """No OS path holds a NUL byte; `expanduser` and `realpath` would raise a bare ValueError on one."""
    if "\0" in text:
        raise ToolError(
            "INVALID_ARGS", f"the path {text[:80]!r} contains a NUL byte, which no file path can hold"
        )


def resolve_path(path: str, cwd: Path) -> Path:
    """Make the model's path absolute and normal: strip a leading `@`, expand `~`, anchor at `cwd`."""
    _refuse_nul(path)
    text = path.strip()
    if text.startswith("@"):
        text = text[1:]
    text = os.path.expanduser(text)
    candidate = Path(text)
    if not candidate.is_absolute():
        candidate = cwd / candidate
    return Path(os.path.normpath(candidate))


def _within(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def confine(path: Path, roots: tuple[Path, ...]) -> Path:
    """The real path (symlinks resolved, existing or not) if it lies under an allowed root, else `OUTSIDE_ROOTS`.

    The *real* path is returned so that the caller opens exactly what was checked.
    """
    _refuse_nul(str(path))
    real = Path(os.path.realpath(path))
    for root in roots:
        if _within(real, Path(os.path.realpath(root))):
            return real
    names = ", ".join(f"'{r}'" for r in roots)
    hint = " (it resolves through a symlink to '" + str(real) + "')" if real != path else ""
    raise ToolError(
        "OUTSIDE_ROOTS",
        f"'{path}' is outside the allowed roots{hint}; use a path under {names}",
    )


@dataclass(frozen=True, kw_only=True)
class Sandbox:
    """Where tools may act (roots), where relative paths start (cwd), how much they may read or print, and
    whether commands may use the network."""

    cwd: Path
    roots: tuple[Path, ...]
    limits: Limits = Limits()
    #: Whether shell commands may reach the network (the OS sandbox cuts it off otherwise).
    network: bool = False

    @classmethod
    def at(
        cls,
        cwd: str | Path,
        *,
        roots: tuple[str | Path, ...] = (),
        limits: Limits | None = None,
        network: bool = False,
    ) -> Sandbox:
        base = Path(os.path.realpath(Path(cwd).expanduser()))
        chosen = tuple(Path(os.path.realpath(Path(r).expanduser())) for r in roots) or (base,)
        return cls(cwd=base, roots=chosen, limits=limits or Limits(), network=network)

    def resolve_path(self, path: str) -> Path:
        return resolve_path(path, self.cwd)

    def confine(self, path: str) -> Path:
        """The one call tools make on a path from the model."""
        return confine(self.resolve_path(path), self.roots)

    def display_path(self, path: Path) -> str:
        """Relative to the working directory when inside it, so cards and rules read `src/a.py`."""
        for base in (self.cwd, *self.roots):
            if _within(path, base):
                rel = path.relative_to(base).as_posix()
                return rel or "."
        return str(path)


def atomic_write(path: Path, data: bytes) -> None:
    """Replace `path` with `data` all at once: a crash or kill leaves either the old file or the new one.

    Temp file in the same directory + fsync + rename; the old file's mode bits are kept.
    """
    directory = path.parent
    directory.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".jupyter-agent.tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def cap_text(text: str, max_chars: int, *, head_share: float = 0.6) -> str:
    """Keep the head and the tail, say how much was cut in between (errors are usually at the end)."""
    if len(text) <= max_chars:
        return text
    head = int(max_chars * head_share)
    tail = max_chars - head
    cut = len(text) - head - tail
    lines_cut = text[head : len(text) - tail].count("\n")
    return (
        text[:head]
        + f"\n… [{cut} characters ({lines_cut} lines) cut: output over {max_chars} characters] …\n"
        + text[len(text) - tail :]
    )


def looks_binary(sample: bytes) -> bool:
    """NUL bytes, or mostly undecodable bytes, in the first block: not text worth showing a model."""
    if not sample:
        return False
    if b"\x00" in sample:
        return True
    try:
        sample.decode("utf-8")
        return False
    except UnicodeDecodeError as exc:
        if exc.start >= len(sample) - 4:  # a multi-byte char cut at the sample's end
            return False
    control = sum(1 for b in sample if b < 9 or 13 < b < 32)
    return control / len(sample) > 0.1
