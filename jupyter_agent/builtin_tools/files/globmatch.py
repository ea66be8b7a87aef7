"""Glob patterns as the model writes them: `**` crosses directories, `*` and `?` stay in one, `{a,b}` and `[…]`.

Patterns are matched against `/`-separated paths relative to the search directory (so `*.py` is the
top level only, `**/*.py` is every depth, as in a shell with globstar). Braces are expanded first, so
they may contain `/`.

Bounded: brace expansion stops at `MAX_BRACE_PATTERNS` patterns (`{a,b}` ten times over is 1,024; more is
refused with `INVALID_ARGS`, before anything is expanded), and the translated regex runs on RE2, which takes
linear time — a backtracking matcher takes exponential time on `*a*a*a*…*b` against a long name.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ...base.errors import ToolError
from ...base.linear_regex import Matcher, compile_linear

_SPECIAL = frozenset("*?[{")
#: The most patterns one glob may expand to.
MAX_BRACE_PATTERNS = 1024


def expand_braces(pattern: str) -> list[str]:
    """`a.{py,pyi}` → [`a.py`, `a.pyi`]; nested braces work; an unmatched `{` is literal. A pattern that would
    expand to more than `MAX_BRACE_PATTERNS` is refused."""
    count = _brace_count(pattern)
    if count > MAX_BRACE_PATTERNS:
        raise ToolError(
            "INVALID_ARGS",
            f"the pattern expands to {count if count < 10**9 else 'over a billion'} patterns through its braces; "
            f"at most {MAX_BRACE_PATTERNS} are allowed: use fewer {{…}} groups or a wider wildcard",
        )
    return _expand(pattern)


def _first_group(pattern: str) -> tuple[int, int] | None:
    """Where the first top-level `{…}` stands (the indexes of its braces); None when there is none."""
    depth, open_at = 0, -1
    for index, char in enumerate(pattern):
        if char == "{":
            if depth == 0:
                open_at = index
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                return open_at, index
    return None


def _brace_count(pattern: str) -> int:
    """How many patterns `_expand` would make, computed without making them (capped growth)."""
    group = _first_group(pattern)
    if group is None:
        return 1
    open_at, close = group
    options = _top_level_options(pattern[open_at + 1 : close])
    inner = 1 if len(options) == 1 else sum(min(_brace_count(o), 10**9) for o in options)
    return min(inner * _brace_count(pattern[close + 1 :]), 10**9)


def _top_level_options(body: str) -> list[str]:
    parts: list[str] = []
    depth, start = 0, 0
    for index, char in enumerate(body):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(body[start:index])
            start = index + 1
    parts.append(body[start:])
    return parts


def _expand(pattern: str) -> list[str]:
    group = _first_group(pattern)
    if group is None:
        return [pattern]
    open_at, close = group
    head, body, tail = pattern[:open_at], pattern[open_at + 1 : close], pattern[close + 1 :]
    options = _split_top_level(body)
    if len(options) == 1:
        return [head + "{" + body + "}" + rest for rest in _expand(tail)]
    return [head + option + rest for option in options for rest in _expand(tail)]


def _split_top_level(body: str) -> list[str]:
    expanded: list[str] = []
    for part in _top_level_options(body):
        expanded += _expand(part)
    return expanded


def _segment(segment: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(segment):
        char = segment[i]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "\\" and i + 1 < len(segment):
            i += 1
            out.append(re.escape(segment[i]))
        elif char == "[" and (close := segment.find("]", i + 2)) != -1:
            body = segment[i + 1 : close]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = close
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def _translate(pattern: str) -> str:
    segments = [s for s in pattern.split("/") if s not in ("", ".")]
    out: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            out.append(".*" if last else "(?:[^/]+/)*")
        else:
            out.append(_segment(segment) + ("" if last else "/"))
    return "".join(out)


def glob_source(pattern: str) -> str:
    """The regex source that fullmatches the relative paths `pattern` selects (for `re` or RE2)."""
    return "|".join(f"(?:{_translate(p)})" for p in expand_braces(pattern))


@lru_cache(maxsize=256)
def glob_regex(pattern: str) -> Matcher:
    """A linear-time matcher that `fullmatch`es the relative paths `pattern` selects."""
    return compile_linear(glob_source(pattern), what="the glob", dot_all=True)


def has_magic(segment: str) -> bool:
    return any(char in _SPECIAL for char in segment)


def split_literal_prefix(pattern: str) -> tuple[str, str]:
    """(`src/data`, `**/*.csv`) from `src/data/**/*.csv`: the leading plain directories, then the rest."""
    segments = pattern.split("/")
    cut = 0
    while cut < len(segments) - 1 and not has_magic(segments[cut]):
        cut += 1
    prefix = "/".join(segments[:cut])
    if pattern.startswith("/") and not prefix:
        prefix = "/"
    return prefix, "/".join(segments[cut:])


def mentions_hidden(pattern: str) -> bool:
    """True when a segment starts with a dot (`.github/**`): the search must then include hidden files."""
    return any(
        s.startswith(".") and s not in (".", "..") for p in expand_braces(pattern) for s in p.split("/")
    )
