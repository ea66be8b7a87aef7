"""The pure-Python search used only when ripgrep is missing: slower, simpler `.gitignore` handling, same results shape.

`.gitignore` support covers the common cases (names, `dir/`, anchored paths, `**`); negated patterns
(`!keep.txt`) are not supported, and the result says the fallback ran.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ...base.errors import ToolError
from ...base.linear_regex import Matcher, compile_linear
from .globmatch import glob_regex, glob_source
from .hits import Hit, Hits, OutputMode

NOTE = (
    "(ripgrep was not found, so a slower built-in search was used; it honours simple .gitignore rules "
    "but not negated ones.)"
)
_SAMPLE = 8192
_MULTILINE_MAX_BYTES = 64 * 1024 * 1024

#: ripgrep's names for common file types, for the `type` filter.
TYPES: dict[str, tuple[str, ...]] = {
    "py": ("*.py", "*.pyi"),
    "jupyter": ("*.ipynb",),
    "js": ("*.js", "*.mjs", "*.cjs", "*.jsx"),
    "ts": ("*.ts", "*.tsx", "*.mts", "*.cts"),
    "md": ("*.md", "*.markdown", "*.mdx"),
    "json": ("*.json",),
    "yaml": ("*.yaml", "*.yml"),
    "toml": ("*.toml",),
    "rust": ("*.rs",),
    "go": ("*.go",),
    "java": ("*.java",),
    "c": ("*.c", "*.h"),
    "cpp": ("*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.h"),
    "html": ("*.html", "*.htm"),
    "css": ("*.css", "*.scss"),
    "sh": ("*.sh", "*.bash", "*.zsh"),
    "sql": ("*.sql",),
    "txt": ("*.txt",),
    "csv": ("*.csv", "*.tsv"),
    "r": ("*.r", "*.R", "*.Rmd"),
}


@dataclass(frozen=True)
class _Rule:
    base: str
    regex: Matcher
    dir_only: bool
    anchored: bool

    def ignores(self, rel: str, is_dir: bool) -> bool:
        if self.dir_only and not is_dir:
            return False
        if self.base:
            if not rel.startswith(self.base + "/"):
                return False
            rel = rel[len(self.base) + 1 :]
        subject = rel if self.anchored else rel.rsplit("/", 1)[-1]
        return self.regex.fullmatch(subject) is not None


def _rules(directory: Path, base: str) -> list[_Rule]:
    rules: list[_Rule] = []
    for name in (".gitignore", ".ignore"):
        try:
            text = (directory / name).read_text("utf-8", "replace")
        except OSError:
            continue
        for raw in text.splitlines():
            line = raw.strip()
            if not line or line.startswith(("#", "!")):
                continue
            dir_only = line.endswith("/")
            line = line.rstrip("/")
            anchored = "/" in line
            rules.append(_Rule(base, glob_regex(line.lstrip("/")), dir_only, anchored))
    return rules


def walk_files(start: Path, *, hidden: bool) -> Iterator[Path]:
    """Files under `start` (or `start` itself), skipping `.git`, hidden files unless asked, and ignored ones."""
    if start.is_file():
        yield start
        return
    rules: list[_Rule] = []
    for directory, dirs, files in os.walk(start):
        here = Path(directory)
        rel_dir = here.relative_to(start).as_posix()
        rel_dir = "" if rel_dir == "." else rel_dir
        rules = [r for r in rules if not r.base or rel_dir == r.base or rel_dir.startswith(r.base + "/")]
        rules += _rules(here, rel_dir)

        def keep(name: str, is_dir: bool, rel_dir: str = rel_dir, rules: list[_Rule] = rules) -> bool:
            if name == ".git" or (name.startswith(".") and not hidden):
                return False
            rel = f"{rel_dir}/{name}" if rel_dir else name
            return not any(rule.ignores(rel, is_dir) for rule in rules)

        dirs[:] = sorted(d for d in dirs if keep(d, True))
        for name in sorted(files):
            if keep(name, False):
                yield here / name


def file_filter(globs: list[str], file_type: str | None) -> Matcher | None:
    """A regex over names or relative paths for Grep's `glob` and `type` (ripgrep's rules: no `/` = any depth)."""
    patterns = list(globs)
    if file_type is not None:
        if file_type not in TYPES:
            raise ToolError(
                "INVALID_ARGS",
                f"unrecognized file type: {file_type}; use one of {', '.join(sorted(TYPES))}, or a glob",
            )
        patterns += TYPES[file_type]
    if not patterns:
        return None
    parts = [glob_source(p if "/" in p else "**/" + p) for p in patterns]
    return compile_linear("|".join(f"(?:{p})" for p in parts), what="the glob", dot_all=True)


def _is_binary(path: Path) -> bool:
    with open(path, "rb") as handle:
        return b"\0" in handle.read(_SAMPLE)


def search_file(
    path: Path, shown: str, regex: Matcher, *, before: int, after: int, multiline: bool
) -> list[Hit]:
    """Matching lines (and context) of one file, in order."""
    if _is_binary(path):
        return []
    with open(path, encoding="utf-8", errors="replace", newline="\n") as handle:
        if multiline:
            if path.stat().st_size > _MULTILINE_MAX_BYTES:
                return []
            text = handle.read()
            lines = text.split("\n")
            starts = [0]
            for line in lines[:-1]:
                starts.append(starts[-1] + len(line) + 1)
            matched: set[int] = set()
            for found in regex.finditer(text):
                first = text.count("\n", 0, found.start())
                last = first + text.count("\n", found.start(), max(found.end() - 1, found.start()))
                matched.update(range(first, last + 1))
            return _with_context(shown, [ln.rstrip("\r") for ln in lines], sorted(matched), before, after)
        hits: list[Hit] = []
        recent: deque[tuple[int, str]] = deque(maxlen=before)
        pending_after = 0
        last_emitted = 0
        for number, raw in enumerate(handle, start=1):
            line = raw.rstrip("\r\n")
            if regex.search(line):
                for prev_number, prev in recent:
                    if prev_number > last_emitted:
                        hits.append(Hit(path=shown, number=prev_number, text=prev, match=False))
                recent.clear()
                hits.append(Hit(path=shown, number=number, text=line, match=True))
                last_emitted, pending_after = number, after
            elif pending_after:
                hits.append(Hit(path=shown, number=number, text=line, match=False))
                last_emitted, pending_after = number, pending_after - 1
            else:
                recent.append((number, line))
        return hits


def _with_context(shown: str, lines: list[str], matched: list[int], before: int, after: int) -> list[Hit]:
    wanted: dict[int, bool] = {}
    for index in matched:
        for near in range(max(index - before, 0), min(index + after, len(lines) - 1) + 1):
            wanted.setdefault(near, False)
        wanted[index] = True
    return [Hit(path=shown, number=i + 1, text=lines[i], match=m) for i, m in sorted(wanted.items())]


def python_search(
    files: Iterator[tuple[Path, str]],
    regex: Matcher,
    mode: OutputMode,
    *,
    before: int,
    after: int,
    multiline: bool,
) -> Hits:
    """Run the search over `(real path, shown path)` pairs and collect what `mode` needs."""
    hits = Hits()
    for real, shown in files:
        try:
            found = search_file(
                real,
                shown,
                regex,
                before=0 if mode != "content" else before,
                after=0 if mode != "content" else after,
                multiline=multiline,
            )
        except OSError:
            continue
        matches = sum(1 for hit in found if hit.match)
        if not matches:
            continue
        if mode == "files_with_matches":
            hits.files.append(shown)
        elif mode == "count":
            hits.counts.append((shown, matches))
        else:
            hits.lines += found
    return hits
