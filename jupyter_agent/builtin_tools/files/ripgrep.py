"""Running ripgrep: where the binary is, the flags every call shares, and what its exit status means.

The `ripgrep` wheel installs `rg` next to the Python executable (the venv's `bin/`), which is not on
PATH inside a kernel started from a launcher, so that place is tried first. `--no-config` keeps a
user's `RIPGREP_CONFIG_PATH` from changing the output we parse; `--no-require-git` makes a project's
`.gitignore` count even when the notebook folder is not a git repository.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from ...base.errors import ToolError
from ...permissions.process import ProcessResult, run_process

#: Finds the `rg` executable (or None); tools take one so tests can simulate a machine without ripgrep.
RgLocator = Callable[[], str | None]

BASE_FLAGS = ("--no-config", "--no-require-git", "--color", "never", "--null")
#: Enough for every realistic result list; beyond it run_process keeps head and tail and we say so.
OUTPUT_CHARS = 16 * 1024 * 1024


def find_rg() -> str | None:
    """The `rg` next to `sys.executable`, else the one on PATH, else None."""
    name = "rg.exe" if os.name == "nt" else "rg"
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("rg")


def search_arg(real: Path, cwd: Path) -> list[str]:
    """The path argument that makes rg print paths the model can pass to Read (relative to cwd, else absolute)."""
    if real == cwd:
        return []
    if real.is_relative_to(cwd):
        return [str(real.relative_to(cwd))]
    return [str(real)]


async def run_rg(
    rg: str, args: Sequence[str], *, cwd: Path, timeout: float, what: str
) -> tuple[ProcessResult, bool]:
    """Run `rg` and check its status; returns the result and whether its output was cut.

    Exit 1 is "no match", not an error; exit 2 with output means some files could not be read.
    """
    result = await run_process(
        [rg, *BASE_FLAGS, *args], cwd=cwd, timeout=timeout, max_output_chars=OUTPUT_CHARS
    )
    if result.timed_out:
        raise ToolError(
            "TIMEOUT",
            f"{what} timed out after {timeout:g} s; search a narrower path or add a glob or type filter",
        )
    if result.returncode == 2 and not result.stdout:
        raise _rg_error(result.stderr, what)
    cut = result.dropped > 0 or len(result.stdout) >= OUTPUT_CHARS
    return result, cut


def _rg_error(stderr: str, what: str) -> ToolError:
    text = stderr.strip()
    if "regex parse error" in text:
        return ToolError(
            "INVALID_ARGS",
            "pattern is not a valid regular expression (Rust regex syntax); escape special characters "
            f"such as ( [ {{ . * with a backslash to match them literally. ripgrep said:\n{text}",
        )
    if "unrecognized file type" in text:
        return ToolError(
            "INVALID_ARGS",
            f"{text.removeprefix('rg: ')}; use a ripgrep type such as py, js, ts, md, json, yaml, "
            "or filter with glob instead",
        )
    return ToolError("EXECUTION_ERROR", f"{what} failed: {text or 'ripgrep exited with status 2'}")


def warnings_of(result: ProcessResult) -> str:
    """ripgrep's complaints about files it skipped (permission denied, …), cut to a few lines."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    if not lines:
        return ""
    shown = "\n".join(lines[:5]) + (f"\n… and {len(lines) - 5} more" if len(lines) > 5 else "")
    return f"Some files could not be searched:\n{shown}"
