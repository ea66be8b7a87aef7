"""What a search found, whichever backend ran it (ripgrep or the built-in fallback), and rg's output parsed into it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

OutputMode = Literal["files_with_matches", "content", "count"]


@dataclass(frozen=True, kw_only=True)
class Hit:
    """One printed line of content mode: a matching line, or a context line around one."""

    path: str
    number: int
    text: str
    match: bool


@dataclass(kw_only=True)
class Hits:
    #: files_with_matches: the matching files; count: (file, matching lines); content: the lines.
    files: list[str] = field(default_factory=list[str])
    counts: list[tuple[str, int]] = field(default_factory=list[tuple[str, int]])
    lines: list[Hit] = field(default_factory=list[Hit])
    #: The backend's output was larger than we keep; what is here is only part of it.
    cut: bool = False
    warnings: str = ""
    #: How many matching files a deny rule left out.
    hidden: int = 0

    def drop(self, hidden: set[str]) -> None:
        """Leave out the files in `hidden` (they are counted, never shown)."""
        self.files = [p for p in self.files if p not in hidden]
        self.counts = [(p, n) for p, n in self.counts if p not in hidden]
        self.lines = [hit for hit in self.lines if hit.path not in hidden]
        self.hidden += len(hidden)

    def paths(self) -> set[str]:
        return {*self.files, *(p for p, _ in self.counts), *(hit.path for hit in self.lines)}


def parse_files(stdout: str) -> list[str]:
    """`rg -l --null`: paths separated by NUL."""
    return [path for path in stdout.split("\0") if path and "\n… [" not in path]


def parse_counts(stdout: str) -> list[tuple[str, int]]:
    """`rg -c --null`: `path NUL count` per line."""
    counts: list[tuple[str, int]] = []
    for line in stdout.splitlines():
        path, sep, number = line.partition("\0")
        if sep and number.isdigit():
            counts.append((path, int(number)))
    return counts


def parse_content(stdout: str) -> list[Hit]:
    """`rg -n --null`: `path NUL number : text` for matches, `path NUL number - text` for context."""
    hits: list[Hit] = []
    for line in stdout.split("\n"):
        path, sep, rest = line.partition("\0")
        if not sep:
            continue  # `--` separators, the empty last line, cut markers
        digits = 0
        while digits < len(rest) and rest[digits].isdigit():
            digits += 1
        if not digits or digits == len(rest) or rest[digits] not in ":-":
            continue
        text = rest[digits + 1 :].removesuffix("\r")
        hits.append(Hit(path=path, number=int(rest[:digits]), text=text, match=rest[digits] == ":"))
    return hits
