"""Grep: ripgrep with Claude Code's inputs; paths in the results are ones the model can pass to Read."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from pydantic import ConfigDict, Field

from ...base.linear_regex import compile_linear
from ...base.result import ToolResult
from ...base.sandbox import Limits
from ...tools.context import ToolContext
from ...tools.core import READ_ONLY, Tool, ToolInput
from .access import Target, hidden_by_deny, model_path, not_found, target
from .globmatch import mentions_hidden
from .grep_output import render
from .hits import Hits, parse_content, parse_counts, parse_files
from .pysearch import NOTE, file_filter, python_search, walk_files
from .ripgrep import RgLocator, find_rg, run_rg, search_arg, warnings_of

DESCRIPTION = """\
Search file contents with ripgrep.
- pattern is a regular expression (ripgrep/Rust syntax): `log.*Error`, `def \\w+\\(`; escape literal \
braces and parentheses (`interface\\{\\}` finds `interface{}`).
- Filter files with glob (`*.py`, `*.{ts,tsx}`, `src/**/*.js`) or type (py, js, ts, md, json, …).
- output_mode: files_with_matches (default; paths, most recently modified first), content (matching \
lines as path:line:text, with -A/-B/-C context), count (matching lines per file).
- multiline: true lets a pattern span lines (`.` then matches newlines too).
- .gitignore'd and hidden files are skipped.
- Results come in whole lines, content mode up to about {content_chars} characters: a longer result ends \
with a marker naming the offset of the next lines. head_limit and offset page through any mode; path, glob \
or type narrow the search.
- Always use Grep to search file contents, not Read on many files."""


class GrepInput(ToolInput):
    model_config = ConfigDict(
        extra="forbid", use_attribute_docstrings=True, frozen=True, populate_by_name=True
    )

    pattern: str
    """The regular expression to search for in file contents."""
    path: str | None = None
    """The file or directory to search (default: the working directory)."""
    glob: str | None = None
    """Only search files matching this glob, e.g. `*.py` or `*.{ts,tsx}` (a glob without `/` matches at any depth)."""
    type: str | None = None
    """Only search files of this ripgrep type, e.g. py, js, md, json; faster than glob for standard types."""
    output_mode: Literal["files_with_matches", "content", "count"] = "files_with_matches"
    """files_with_matches (default): paths; content: matching lines; count: matching lines per file."""
    before: int | None = Field(default=None, alias="-B", ge=0)
    """Lines of context before each match (content mode only)."""
    after: int | None = Field(default=None, alias="-A", ge=0)
    """Lines of context after each match (content mode only)."""
    context: int | None = Field(default=None, alias="-C", ge=0)
    """Lines of context before and after each match (content mode only)."""
    line_numbers: bool = Field(default=True, alias="-n")
    """Show line numbers (content mode only)."""
    ignore_case: bool = Field(default=False, alias="-i")
    """Match case-insensitively."""
    head_limit: int | None = Field(default=None, ge=0)
    """Only the first N lines or entries of the result, like `| head -N`; 0 means no limit (as in Claude Code)."""
    offset: int = Field(default=0, ge=0)
    """Skip the first N lines or entries of the result, then apply head_limit (`| tail -n +N+1 | head -N`)."""
    multiline: bool = False
    """Let the pattern match across lines (`.` matches newlines too)."""

    def context_lines(self) -> tuple[int, int]:
        """(before, after): -A/-B win over -C, as in ripgrep."""
        around = self.context or 0
        before = self.before if self.before is not None else around
        after = self.after if self.after is not None else around
        return (before, after) if self.output_mode == "content" else (0, 0)


class GrepTool(Tool[GrepInput]):
    name = "Grep"
    description = DESCRIPTION.replace("{content_chars}", f"{Limits().max_search_output_chars:,}")
    kind = "read"
    annotations = READ_ONLY
    Input = GrepInput
    rule_field = "path"
    rule_kind = "path"

    def __init__(self, *, locate_rg: RgLocator = find_rg) -> None:
        self.locate_rg = locate_rg

    def title(self, params: GrepInput, ctx: ToolContext) -> str:
        return f'Grep "{params.pattern}"' + (f" in {params.path}" if params.path else "")

    async def run(self, params: GrepInput, ctx: ToolContext) -> ToolResult:
        where = target(ctx, params.path or ".")
        if not where.real.exists():
            raise not_found(ctx, where)
        rg = self.locate_rg()
        if rg is not None:
            hits = await _ripgrep(rg, params, ctx, where)
        else:
            hits = await asyncio.to_thread(_fallback, params, ctx, where)
        hits.drop({p for p in hits.paths() if hidden_by_deny(ctx, self.name, p)})
        await asyncio.to_thread(_sort, hits, params, ctx.sandbox.cwd)  # stats files: keep it off the loop
        limits = ctx.sandbox.limits
        content = params.output_mode == "content"
        budget = limits.max_search_output_chars if content else limits.max_output_chars
        result = render(hits, params.output_mode, params, where.shown, budget)
        if rg is None:
            return ToolResult.ok(
                f"{result.content}\n\n{NOTE}", summary=result.summary, data={"backend": "python"}
            )
        return result


def _globs(params: GrepInput) -> list[str]:
    return params.glob.split() if params.glob else []


def _hidden(params: GrepInput) -> bool:
    return any(mentions_hidden(g) for g in _globs(params))


async def _ripgrep(rg: str, params: GrepInput, ctx: ToolContext, where: Target) -> Hits:
    args: list[str] = []
    if params.output_mode == "files_with_matches":
        args.append("--files-with-matches")
    elif params.output_mode == "count":
        args.append("--count")
    else:
        before, after = params.context_lines()
        args += ["--line-number", "--with-filename", "--no-heading", "-B", str(before), "-A", str(after)]
        args += ["--max-columns", str(ctx.sandbox.limits.max_line_chars), "--max-columns-preview"]
    if params.ignore_case:
        args.append("--ignore-case")
    if params.multiline:
        args += ["--multiline", "--multiline-dotall"]
    if _hidden(params):
        args.append("--hidden")
    for glob in _globs(params):
        args += ["--glob", glob]
    if params.type:
        args += ["--type", params.type]
    args += ["--regexp", params.pattern, "--", *(search_arg(where.real, ctx.sandbox.cwd) or ["."])]
    timeout = ctx.sandbox.limits.default_timeout
    result, cut = await run_rg(rg, args, cwd=ctx.sandbox.cwd, timeout=timeout, what="Grep")
    stdout = result.stdout
    hits = Hits(cut=cut, warnings=warnings_of(result) if result.returncode == 2 else "")
    if params.output_mode == "files_with_matches":
        hits.files = [_clean(p) for p in parse_files(stdout)]
    elif params.output_mode == "count":
        hits.counts = [(_clean(p), n) for p, n in parse_counts(stdout)]
    else:
        hits.lines = [dataclasses.replace(hit, path=_clean(hit.path)) for hit in parse_content(stdout)]
    return hits


def _clean(path: str) -> str:
    return path[2:] if path.startswith("./") else path


def _fallback(params: GrepInput, ctx: ToolContext, where: Target) -> Hits:
    source = f"(?m){params.pattern}" if params.multiline else params.pattern
    regex = compile_linear(source, what="pattern", ignore_case=params.ignore_case, dot_all=params.multiline)
    chosen = file_filter(_globs(params), params.type)
    root = where.real if where.real.is_dir() else where.real.parent

    def files() -> Iterator[tuple[Path, str]]:
        for real in walk_files(where.real, hidden=_hidden(params)):
            rel = real.relative_to(root).as_posix()
            if where.real.is_dir() and chosen is not None and not chosen.fullmatch(rel):
                continue
            yield real, model_path(ctx, real)

    before, after = params.context_lines()
    return python_search(
        files(), regex, params.output_mode, before=before, after=after, multiline=params.multiline
    )


def _sort(hits: Hits, params: GrepInput, cwd: Path) -> None:
    """Files newest first (what was just worked on is usually what is wanted); counts and lines by path."""

    def mtime(path: str) -> float:
        try:
            return (cwd / path).stat().st_mtime
        except OSError:
            return 0.0

    if params.output_mode == "files_with_matches":
        stamped = [(mtime(p), p) for p in hits.files]
        stamped.sort(key=lambda item: (-item[0], item[1]))
        hits.files = [p for _, p in stamped]
    elif params.output_mode == "count":
        hits.counts.sort()
    else:
        order = sorted({hit.path for hit in hits.lines})
        rank = {path: i for i, path in enumerate(order)}
        hits.lines.sort(key=lambda hit: (rank[hit.path], hit.number))
