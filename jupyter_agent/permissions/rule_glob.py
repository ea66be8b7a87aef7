"""The glob language of rule patterns: `*`, `?`, `**`, `:*` prefixes and `\\`-escapes, compiled once per pattern."""

from __future__ import annotations

import re
from functools import lru_cache

from .kinds import RuleKind

WILDCARDS = re.compile(r"(?<!\\)(?:\\\\)*[*?]")


def escape_pattern(text: str) -> str:
    """A pattern that matches exactly `text`: `rm *.py` → `rm \\*.py`."""
    return text.replace("\\", "\\\\").replace("*", "\\*").replace("?", "\\?")


def literal(pattern: str) -> str | None:
    """The text a wildcard-free pattern stands for, or None when it has a wildcard."""
    if WILDCARDS.search(pattern):
        return None
    return re.sub(r"\\([\\*?])", r"\1", pattern)


@lru_cache(maxsize=512)
def glob_regex(pattern: str, kind: RuleKind) -> re.Pattern[str]:
    """`**` crosses `/`; for paths `*` and `?` stay within one segment; for commands `*` matches anything.

    Anchored at both ends. A command pattern ending in `:*` (a text pattern also ` *`) is a prefix that ends at
    a word boundary; a path
    pattern ending in `/**` also matches the directory itself (a search rooted there reads what is in it).
    """
    out: list[str] = []
    tail = r"\Z"
    if kind == "command" and pattern.endswith(":*") and literal(pattern[:-2]) is not None:
        pattern, tail = pattern[:-2], r"(?:\s.*)?\Z"
    elif kind == "text" and pattern.endswith((":*", " *")) and literal(pattern[:-2]) is not None:
        pattern, tail = pattern[:-2], r"(?:\s.*)?\Z"  # `Skill(deploy *)`: deploy, with or without arguments
    elif kind == "path" and pattern.endswith("/**") and not pattern.endswith("\\/**"):
        pattern, tail = pattern[:-3], r"(?:/.*)?\Z"  # `dir/**` is the directory and everything in it
    i = 0
    while i < len(pattern):
        if pattern[i] == "\\" and i + 1 < len(pattern) and pattern[i + 1] in "\\*?":
            out.append(re.escape(pattern[i + 1]))
            i += 2
        elif pattern.startswith("**/", i) and kind == "path":
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*" if kind == "path" else ".*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]" if kind == "path" else ".")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + tail, re.DOTALL)
