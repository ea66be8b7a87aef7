"""Running git so that it writes nothing and runs no program a repository's configuration names.

A repository is data someone else may have written: its `.git/config` can name a program for
`core.fsmonitor`, `core.pager`, `diff.external`, a filter's `clean` / `smudge` / `process`, a diff driver's
`textconv` / `command`, and git would run it on `status` or `diff`. Every call therefore:

- drops the kernel's `GIT_*` variables and credentials, reads no system or global configuration
  (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`), takes no optional lock (`GIT_OPTIONAL_LOCKS=0`: status
  does not refresh the index), and uses no pager or prompt;
- overrides the executing keys with `-c` (the filter and diff-driver names are read first from the repository's
  own configuration, which runs nothing), refuses every transport (`protocol.allow=never`: a partial clone
  cannot fetch through a configured command), and passes `--no-ext-diff --no-textconv` where git takes them;
- does not enter submodules, whose own configuration was not read.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from ...base.errors import ToolError
from ...masking import scrubbed_environ
from ...permissions.process import ProcessResult, run_process
from .options import GitCommand

#: Keys that name a program, set to nothing (or off) for every call.
_FIXED_OVERRIDES = (
    "core.fsmonitor=false",
    "core.pager=cat",
    "core.hooksPath=/dev/null",
    "core.sshCommand=",
    "diff.external=",
    "protocol.allow=never",
    "log.showSignature=false",
    "diff.ignoreSubmodules=all",
    "status.submoduleSummary=false",
    "gpg.program=",
    "core.quotePath=false",
)
#: A configured key whose value git runs: `filter.<driver>.clean`, `diff.<driver>.textconv`, …
_EXECUTING_KEY = re.compile(
    r"(filter\..+\.(clean|smudge|process)|diff\..+\.(textconv|command)|merge\..+\.driver)\Z", re.I
)
#: What git takes, subcommand by subcommand, to leave external diff programs and text conversion out.
_NO_PROGRAMS: dict[GitCommand, tuple[str, ...]] = {
    "status": ("--ignore-submodules=all",),
    "diff": ("--no-ext-diff", "--no-textconv", "--no-color", "--ignore-submodules=all"),
    "log": ("--no-ext-diff", "--no-textconv", "--no-color"),
    "show": ("--no-ext-diff", "--no-textconv", "--no-color"),
    "blame": ("--no-textconv",),
}
GIT_TIMEOUT = 60.0


def git_environment() -> dict[str, str]:
    """The kernel's environment without credentials or `GIT_*`, with git made quiet and local."""
    kept = {k: v for k, v in scrubbed_environ(os.environ).items() if not k.startswith("GIT_")}
    return {
        **kept,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_PAGER": "cat",
        "PAGER": "cat",
        "GIT_ATTR_NOSYSTEM": "1",
        "GIT_PROTOCOL_FROM_USER": "0",
    }


async def _git(
    argv: Sequence[str], *, cwd: Path, overrides: Sequence[str] = (), max_chars: int = 30_000
) -> ProcessResult:
    config = [part for key in (*_FIXED_OVERRIDES, *overrides) for part in ("-c", key)]
    try:
        result = await run_process(
            ["git", "--no-pager", *config, *argv],
            cwd=cwd,
            timeout=GIT_TIMEOUT,
            env=git_environment(),
            max_output_chars=max_chars,
        )
    except FileNotFoundError:
        raise ToolError("NOT_AVAILABLE", "git is not installed on this machine (no `git` on PATH)") from None
    if result.timed_out:
        raise ToolError("TIMEOUT", f"git timed out after {GIT_TIMEOUT:g} s; narrow it with paths or -n")
    return result


async def toplevel(directory: Path) -> Path:
    """The real top of the work tree holding `directory` (`INVALID_ARGS` when there is none)."""
    result = await _git(["rev-parse", "--show-toplevel"], cwd=directory)
    top = result.stdout.strip()
    if result.returncode != 0 or not top:
        raise ToolError(
            "INVALID_ARGS",
            f"'{directory}' is not inside a git work tree ({result.stderr.strip() or 'no repository'}); "
            "pass repo, a directory of the repository",
        )
    return Path(os.path.realpath(top))


async def driver_overrides(directory: Path) -> list[str]:
    """`-c` values that empty every filter, diff and merge driver command the repository configures."""
    result = await _git(["config", "--null", "--name-only", "--list"], cwd=directory)
    keys = {key for key in result.stdout.split("\0") if _EXECUTING_KEY.match(key.strip())}
    overrides = [f"{key.strip()}=" for key in sorted(keys)]
    filters = {key.strip().rsplit(".", 1)[0] for key in keys if key.lower().startswith("filter.")}
    return overrides + [f"{name}.required=false" for name in sorted(filters)]


async def run_git(
    command: GitCommand, arguments: Sequence[str], *, cwd: Path, max_chars: int
) -> ProcessResult:
    """`git <command> <safe flags> <arguments>` in `cwd`, with the repository's programs disabled."""
    overrides = await driver_overrides(cwd)
    return await _git(
        [command, *_NO_PROGRAMS[command], *arguments], cwd=cwd, overrides=overrides, max_chars=max_chars
    )
