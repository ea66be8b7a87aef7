"""Paths, writes and limits for every tool, written once: no tool repeats path or size logic."""

from __future__ import annotations

import codecs
import contextlib
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..masking import clip
from .errors import ToolError
from .images import MAX_IMAGE_BYTES
from .stopping import current_stop
from .tempfiles import note_directory, temp_name


@dataclass(frozen=True, kw_only=True)
class Limits:
    """Caps that keep one tool call from flooding the model's context or the machine."""

    max_file_bytes: int = 256 * 1024
    max_read_lines: int = 2000
    #: What a Read without `limit` returns at most (about 10,000 tokens): a first look at a file; an explicit
    #: offset/limit reads up to `READ_OUTPUT_CHARS`, and the marker gives the offset to read on.
    max_default_read_chars: int = 40_000
    max_line_chars: int = 2000
    max_output_chars: int = 30_000
    #: What RunCode and RunCell bring back of what code printed (about 2,000 tokens): exploratory output is
    #: meant to be looked at, and the cut marker says how to see the rest.
    max_code_output_chars: int = 8_000
    #: What Grep's content mode brings back (about 2,000 tokens), in whole lines; its marker gives the offset
    #: of the next ones.
    max_search_output_chars: int = 8_000
    max_image_bytes: int = MAX_IMAGE_BYTES
    default_timeout: float = 120.0
    max_timeout: float = 600.0
    max_glob_results: int = 100
    #: What the kernel journal may hold in copies for undo (`kernel_undo_budget_mb`).
    kernel_undo_bytes: int = 512 * 1024 * 1024


#: How a text file with no byte-order mark or coding declaration that is not UTF-8 is read (and written back).
DEFAULT_FALLBACK_ENCODING = "cp1252"

#: `AgentMagics.bash_sandbox`: "required" — Bash outside its OS sandbox always asks, even under an allow rule;
#: "off" — allow rules run it unsandboxed too.
BashSandbox = Literal["required", "off"]
BASH_SANDBOX_VALUES: tuple[BashSandbox, ...] = ("required", "off")


def _refuse_nul(text: str) -> None:
    """No OS path holds a NUL byte; `expanduser` and `realpath` would raise a bare ValueError on one."""
    if "\0" in text:
        raise ToolError(
            "INVALID_ARGS",
            f"the path {clip(text, 80, marker='')!r} contains a NUL byte, which no file path can hold",
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
    #: The encoding of text files that have no BOM or coding declaration and are not UTF-8.
    fallback_encoding: str = DEFAULT_FALLBACK_ENCODING
    #: Directories Read may read outside the roots, never write: the loaded skills' own folders.
    read_roots: tuple[Path, ...] = ()
    #: Whether Bash needs its OS sandbox to run under an allow rule (`AgentMagics.bash_sandbox`).
    bash_sandbox: BashSandbox = "required"
    #: A Claude Code project's `env`: set for the commands run for the project (Bash), never in the kernel.
    command_env: tuple[tuple[str, str], ...] = ()

    @classmethod
    def at(
        cls,
        cwd: str | Path,
        *,
        roots: tuple[str | Path, ...] = (),
        limits: Limits | None = None,
        network: bool = False,
        fallback_encoding: str = DEFAULT_FALLBACK_ENCODING,
        read_roots: tuple[Path, ...] = (),
        bash_sandbox: BashSandbox = "required",
        command_env: tuple[tuple[str, str], ...] = (),
    ) -> Sandbox:
        base = Path(os.path.realpath(Path(cwd).expanduser()))
        chosen = tuple(Path(os.path.realpath(Path(r).expanduser())) for r in roots) or (base,)
        return cls(
            cwd=base,
            roots=chosen,
            limits=limits or Limits(),
            network=network,
            fallback_encoding=fallback_encoding,
            read_roots=tuple(Path(os.path.realpath(r)) for r in read_roots),
            bash_sandbox=bash_sandbox,
            command_env=command_env,
        )

    def resolve_path(self, path: str) -> Path:
        return resolve_path(path, self.cwd)

    def confine(self, path: str) -> Path:
        """The one call tools make on a path from the model."""
        return confine(self.resolve_path(path), self.roots)

    def confine_read(self, path: str) -> Path:
        """`confine` for a read: also a file inside one of the `read_roots` (symlinks resolved first)."""
        resolved = self.resolve_path(path)
        try:
            return confine(resolved, self.roots)
        except ToolError:
            real = Path(os.path.realpath(resolved))
            if any(_within(real, root) for root in self.read_roots):
                return real
            raise

    def root_of(self, real: Path) -> Path:
        """The allowed root `real` lies under (the first that holds it); `real` is what `confine` returned."""
        for root in self.roots:
            if _within(real, Path(os.path.realpath(root))):
                return Path(os.path.realpath(root))
        raise ToolError("OUTSIDE_ROOTS", f"'{real}' is outside the allowed roots")

    def missing_roots(self) -> list[Path]:
        """Roots that are not directories on this machine (a tool never creates one, nor its parents)."""
        return [root for root in self.roots if not root.is_dir()]

    def display_path(self, path: Path) -> str:
        """Relative to the working directory when inside it, so cards and rules read `src/a.py`."""
        for base in (self.cwd, *self.roots):
            if _within(path, base):
                return path.relative_to(base).as_posix()  # the directory itself is "."
        return str(path)


def atomic_write(path: Path, data: bytes, *, make_below: Path | None = None) -> None:
    """Replace `path` with `data` all at once: a crash or kill leaves either the old file or the new one.

    `path` is a real path (what `confine` returns). Its directories are opened one by one from `/` without
    following symlinks, and the temp file, the rename and the fsync all go through that directory handle: a
    directory swapped for a symlink after the path was checked makes the write fail instead of landing
    wherever the link points. Temp file in the same directory + fsync + rename; the old mode bits are kept.

    Missing directories are created only strictly below `make_below` (the root the file is under): a missing
    root, or anything above it, is an error — a tool never creates a root (None: any missing directory).
    """
    note_directory(path.parent)  # a kill -9 before the rename leaves a temp file the next run sweeps
    directory = open_directory(path.parent, make_below=make_below)
    try:
        _replace_in(directory, path, data)
        os.fsync(directory)
    finally:
        os.close(directory)


#: Python opens every descriptor close-on-exec already (PEP 446), so no O_CLOEXEC here or for the temp file.
_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


def open_directory(path: Path, *, make_below: Path | None = None, create: bool = True) -> int:
    """A handle on `path`, reached component by component with no symlink followed (missing ones made, below
    `make_below` only when it is given; with `create` False a missing one is FileNotFoundError)."""
    if not path.is_absolute():
        raise ValueError(f"atomic_write needs an absolute real path, got '{path}'")
    fd = os.open("/", _DIRECTORY_FLAGS)
    walked = Path("/")
    try:
        for part in path.parts[1:]:
            walked /= part
            try:
                child = os.open(part, _DIRECTORY_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                if make_below is not None and (walked == make_below or not walked.is_relative_to(make_below)):
                    raise _missing_root(make_below, path) from None
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
                child = os.open(part, _DIRECTORY_FLAGS, dir_fd=fd)
            except OSError as exc:
                if os.path.islink(walked):
                    raise ToolError(
                        "OUTSIDE_ROOTS",
                        f"'{walked}' was replaced by a symlink after the path '{path}' was checked; nothing was "
                        "read or written through it — check what changed the directory, then retry",
                    ) from None
                raise exc
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _missing_root(root: Path, path: Path) -> ToolError:
    return ToolError(
        "FILE_NOT_FOUND",
        f"the allowed root '{root}' does not exist on this kernel's machine, so nothing was written to '{path}'; "
        "a tool never creates a root or its parents — create the directory, or set "
        "%config AgentMagics.roots to directories that exist here",
    )


def _replace_in(directory: int, path: Path, data: bytes) -> None:
    name = path.name
    try:
        old = os.stat(name, dir_fd=directory, follow_symlinks=False)
        mode: int | None = old.st_mode & 0o7777 if stat.S_ISREG(old.st_mode) else None
    except FileNotFoundError:
        mode = None
    if mode is None:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    tmp_name, fd = _create_temp(directory, name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
        with current_stop().committing():  # a run stopped by now does not replace the file
            os.replace(tmp_name, name, src_dir_fd=directory, dst_dir_fd=directory)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name, dir_fd=directory)
        raise


def _create_temp(directory: int, name: str) -> tuple[str, int]:
    """`.<name>.<pid>-<random>.jupyter-agent.tmp`, created exclusively (never an existing file or link), open."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    for _ in range(100):
        tmp_name = temp_name(name, secrets.token_hex(4))
        try:
            return tmp_name, os.open(tmp_name, flags, 0o600, dir_fd=directory)
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temp file name next to '{name}'")


def looks_binary(sample: bytes) -> bool:
    """NUL bytes, or many control bytes in a block that is not UTF-8: not text worth showing a model.

    The sample is the file's first block, so a multi-byte character may be cut at its end: the decoder is
    not told the data ends there, and such a block still counts as UTF-8.
    """
    if b"\x00" in sample:
        return True
    try:
        codecs.getincrementaldecoder("utf-8")().decode(sample)
        return False
    except UnicodeDecodeError:
        pass
    control = sum(1 for b in sample if b < 9 or 13 < b < 32)
    return control / len(sample) > 0.1
