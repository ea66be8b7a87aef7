"""What every file tool does with a path and the read ledger, written once.

Freshness tokens: a file up to `limits.max_file_bytes` is identified by its content hash. A bigger
file can only be read in ranges (Read refuses it whole), so hashing it on every read would cost a full
scan; it is identified by `size + mtime_ns` instead. Write and Edit compute the token the same way, so
a model that read part of a 1 GB log may still edit it, and a change by anyone else (different size or
modification time) is still caught. The token of a file that crossed the cap either way never matches.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from pathlib import Path

from ...base.errors import ToolError
from ...tools.context import ToolContext
from ...tools.ledger import content_hash


@dataclass(frozen=True, kw_only=True)
class Target:
    """A confined path: `real` is what gets opened, `shown` is how the model and people see it.

    `shown` is relative to the working directory when the file is under it and absolute otherwise, so
    the model can pass it straight back to any tool (a path relative to another root would not resolve).
    """

    real: Path
    shown: str

    @property
    def key(self) -> str:
        """The read-ledger key of the file."""
        return str(self.real)


def target(ctx: ToolContext, path: str) -> Target:
    """Resolve and confine the model's path (`OUTSIDE_ROOTS` otherwise; `INVALID_ARGS` for a NUL byte)."""
    real = ctx.sandbox.confine(path)
    return Target(real=real, shown=model_path(ctx, real))


def read_target(ctx: ToolContext, path: str) -> Target:
    """`target` for Read: a loaded skill's own files may be read outside the roots (never written)."""
    real = ctx.sandbox.confine_read(path)
    return Target(real=real, shown=model_path(ctx, real))


def model_path(ctx: ToolContext, real: Path) -> str:
    cwd = ctx.sandbox.cwd
    if real == cwd:
        return "."
    return real.relative_to(cwd).as_posix() if real.is_relative_to(cwd) else str(real)


def hidden_by_deny(ctx: ToolContext, tool: str, shown: str) -> bool:
    """Whether a deny rule hides this file (shown as `model_path` gives it) from a search run by `tool`."""
    if not ctx.policy.deny:
        return False
    reached = Path(os.path.normpath(ctx.sandbox.cwd / shown))
    real = Path(os.path.realpath(reached))
    return ctx.policy.hides(tool, shown, ctx.sandbox.display_path(real), (str(reached), str(real)))


def hidden_note(count: int) -> str:
    """What a search says when a deny rule left files out (the model should not retry with another tool)."""
    paths = "1 path was" if count == 1 else f"{count} paths were"
    return f"[{paths} hidden by a deny rule.]"


def not_found(ctx: ToolContext, where: Target) -> ToolError:
    """`FILE_NOT_FOUND` naming up to three existing neighbours with similar names."""
    parent = where.real.parent
    hint = ""
    if parent.is_dir():
        try:
            siblings = [entry.name for entry in os.scandir(parent)]
        except OSError:
            siblings = []
        close = difflib.get_close_matches(where.real.name, siblings, n=3, cutoff=0.6)
        if close:
            names = ", ".join(f"'{model_path(ctx, parent / name)}'" for name in close)
            hint = f"; did you mean {names}?"
    else:
        hint = f"; its directory '{model_path(ctx, parent)}' does not exist either"
    return ToolError(
        "FILE_NOT_FOUND",
        f"'{where.shown}' does not exist (relative paths start at '{ctx.sandbox.cwd}'){hint}",
    )


def freshness_token(path: Path, data: bytes | None, cap: int) -> str:
    """Identifies the file's current content (see the module docstring); `data` when the caller has it."""
    stat = path.stat()
    if stat.st_size <= cap:
        return content_hash(data if data is not None else path.read_bytes())
    return f"large:{stat.st_size}:{stat.st_mtime_ns}"


def remember(ctx: ToolContext, where: Target, data: bytes | None = None) -> None:
    """Record that the model has seen the file as it is now."""
    ctx.reads.record(where.key, freshness_token(where.real, data, ctx.sandbox.limits.max_file_bytes))


def require_fresh(ctx: ToolContext, where: Target, data: bytes) -> None:
    """`STALE_READ` unless the model read this file and nobody changed it since (`NOT_READ` if it never read it)."""
    ctx.reads.require_fresh(
        where.key,
        freshness_token(where.real, data, ctx.sandbox.limits.max_file_bytes),
        what=f"'{where.shown}'",
        reread="Read it",
    )


def not_a_directory(where: Target) -> None:
    """`IS_DIRECTORY` for a directory, pointing at the tool that lists one."""
    if where.real.is_dir():
        raise ToolError(
            "IS_DIRECTORY",
            f"'{where.shown}' is a directory, not a file; use Glob with path '{where.shown}' to list it",
        )


def read_existing(where: Target) -> bytes | None:
    """The file's bytes, None when it does not exist; `IS_DIRECTORY` for a directory."""
    not_a_directory(where)
    try:
        return where.real.read_bytes()
    except FileNotFoundError:
        return None


#: Read, Glob and Grep: they change nothing, so they run concurrently and never ask.
#: Write and Edit replace what was there.
