"""Glob: files whose path matches a pattern, newest first, .gitignore respected (ripgrep lists, we match)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from pydantic import Field

from ...base.errors import ToolError
from ...base.result import ToolResult
from ...tools.context import ToolContext
from ...tools.core import READ_ONLY, Tool, ToolInput
from .access import Target, hidden_by_deny, hidden_note, model_path, not_found, target
from .globmatch import glob_regex, mentions_hidden, split_literal_prefix
from .pysearch import NOTE, walk_files
from .ripgrep import RgLocator, find_rg, run_rg

DESCRIPTION = """\
Find files by name with a glob pattern; returns paths, most recently modified first.
- `**` matches any number of directories, `*` and `?` stay within one: `*.py` is the top level only, \
`**/*.py` every depth, `src/**/*.{ts,tsx}` under src.
- path is the directory to search (default: the working directory).
- .gitignore'd files are skipped, and hidden ones unless the pattern names them (`.github/**`).
- Use Grep to search inside files. You may run several Globs at once."""


class GlobInput(ToolInput):
    pattern: str = Field(min_length=1)
    """The glob to match against paths relative to `path`, e.g. `**/*.csv` or `notebooks/*.ipynb`."""
    path: str | None = None
    """The directory to search in (default: the working directory)."""


class GlobTool(Tool[GlobInput]):
    name = "Glob"
    description = DESCRIPTION
    kind = "read"
    annotations = READ_ONLY
    Input = GlobInput
    rule_field = "path"
    rule_kind = "path"

    def __init__(self, *, locate_rg: RgLocator = find_rg) -> None:
        self.locate_rg = locate_rg

    def title(self, params: GlobInput, ctx: ToolContext) -> str:
        return f"Glob {params.pattern}" + (f" in {params.path}" if params.path else "")

    async def run(self, params: GlobInput, ctx: ToolContext) -> ToolResult:
        base = target(ctx, params.path or ".")
        if not base.real.exists():
            raise not_found(ctx, base)
        if not base.real.is_dir():
            raise ToolError(
                "INVALID_ARGS", f"path '{base.shown}' is a file; pass the directory to search as path"
            )
        regex = glob_regex(
            split_literal_prefix(params.pattern)[1] or "*"
        )  # refuses an explosive pattern first
        prefix, rest = split_literal_prefix(params.pattern)
        rest = rest or "*"  # `src/` lists the directory
        where = target(ctx, os.path.join(str(base.real), os.path.expanduser(prefix))) if prefix else base
        rg = self.locate_rg()
        found: list[str] = []
        if where.real.is_dir():
            if rg is not None:
                found = await _rg_files(rg, where.real, rest, ctx.sandbox.limits.default_timeout)
            else:
                found = await asyncio.to_thread(_walk, where.real, rest)
        # RE2 takes linear time, and off the event loop even a huge listing leaves the kernel responsive.
        matches = await asyncio.to_thread(lambda: [where.real / rel for rel in found if regex.fullmatch(rel)])
        shown = [m for m in matches if not hidden_by_deny(ctx, self.name, model_path(ctx, m))]
        text, summary = await asyncio.to_thread(_listing, shown, ctx, params.pattern, where)
        if len(shown) < len(matches):
            text += "\n\n" + hidden_note(len(matches) - len(shown))
        if rg is None:
            text += f"\n\n{NOTE}"
        return ToolResult.ok(text, summary=summary, data={"count": len(shown)})


async def _rg_files(rg: str, directory: Path, pattern: str, timeout: float) -> list[str]:
    # No `--glob` prefilter: ripgrep lets a file that matches one through .gitignore and hidden-file rules.
    args = ["--files"]
    if mentions_hidden(pattern):
        args.append("--hidden")
    result, _ = await run_rg(rg, [*args, "--", "."], cwd=directory, timeout=timeout, what="Glob")
    return [p[2:] if p.startswith("./") else p for p in result.stdout.split("\0") if p and "\n… [" not in p]


def _walk(directory: Path, pattern: str) -> list[str]:
    return [
        p.relative_to(directory).as_posix() for p in walk_files(directory, hidden=mentions_hidden(pattern))
    ]


def _listing(matches: list[Path], ctx: ToolContext, pattern: str, where: Target) -> tuple[str, str]:
    if not matches:
        return f"No files match '{pattern}' in '{where.shown}'.", "No files found"
    stamped: list[tuple[float, str]] = []
    for path in matches:
        try:
            stamped.append((path.stat().st_mtime, model_path(ctx, path)))
        except OSError:
            continue
    stamped.sort(key=lambda item: (-item[0], item[1]))
    cap = ctx.sandbox.limits.max_glob_results
    lines = [shown for _, shown in stamped[:cap]]
    summary = f"Found {len(stamped)} file" + ("" if len(stamped) == 1 else "s")
    text = "\n".join(lines)
    if len(stamped) > cap:
        text += (
            f"\n\n[Showing the {cap} most recently modified of {len(stamped)} files; "
            f"{len(stamped) - cap} more not shown. Narrow the pattern or path to see them.]"
        )
    return text, summary
