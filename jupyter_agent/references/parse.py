"""Finding what a request points at: `@name` (a variable), `@cell:ID` (a cell), `@output:ID[:N]` (an output).

The rules, so that ordinary text is not taken for a reference:

- `@` must start a word: not after a letter, digit, `_`, `.`, `@`, `+`, `-`, `/` or `\\` — so an e-mail
  address (`ana@example.com`), a path or `a@b` is not one.
- Code is not searched: fenced blocks (``` or ~~~) and inline `code` spans are skipped, and so is a line that
  starts with `@…` when the next non-blank line is `def`, `async def`, `class` or another `@` line (a
  decorator pasted without a fence).
- A name is a Python identifier (`@df`, `@sales_2024`); `@df.columns` refers to `df`. A cell id is
  nbformat's (letters, digits, `-`, `_`, up to 64); `N` counts a cell's outputs from 1, as they are shown.
- Each reference is taken once, in the order of first appearance, at most `MAX_REFERENCES` of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

MAX_REFERENCES = 10

_FENCE = re.compile(r"^\s*(```|~~~)")
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_DECORATED = re.compile(r"^\s*(async\s+def|def|class)\b|^\s*@")
_REFERENCE = re.compile(
    r"(?<![\w.@+\-/\\])@(?:"
    r"(?P<kind>cell|output):(?P<id>[A-Za-z0-9_-]{1,64})(?::(?P<n>\d{1,4}))?"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r")"
)


@dataclass(frozen=True, kw_only=True)
class Reference:
    kind: Literal["variable", "cell", "output"]
    #: The variable's name, or the cell's id.
    target: str
    #: For `@output:ID:N`, N (1-based); None means every output of the cell.
    output: int | None = None

    @property
    def text(self) -> str:
        """How it is written in the request: `@df`, `@cell:ab12`, `@output:ab12:2`."""
        if self.kind == "variable":
            return f"@{self.target}"
        suffix = f":{self.output}" if self.output is not None else ""
        return f"@{self.kind}:{self.target}{suffix}"


def _prose_lines(request: str) -> list[str]:
    """The request's lines outside code: fences, inline code and pasted decorators blanked."""
    lines = request.splitlines()
    kept: list[str] = []
    in_fence = False
    for index, line in enumerate(lines):
        if _FENCE.match(line):
            in_fence = not in_fence
            kept.append("")
            continue
        if in_fence or _is_decorator(lines, index):
            kept.append("")
            continue
        kept.append(_INLINE_CODE.sub("", line))
    return kept


def _is_decorator(lines: list[str], index: int) -> bool:
    if not lines[index].lstrip().startswith("@"):
        return False
    following = next((line for line in lines[index + 1 :] if line.strip()), "")
    return bool(_DECORATED.match(following))


def find_references(request: str) -> list[Reference]:
    """The references in `request`, deduplicated, in order, at most `MAX_REFERENCES + 1` (the caller says
    when there were more)."""
    found: dict[str, Reference] = {}
    for line in _prose_lines(request):
        for match in _REFERENCE.finditer(line):
            if match.group("name") is not None:
                reference = Reference(kind="variable", target=match.group("name"))
            else:
                kind = "cell" if match.group("kind") == "cell" else "output"
                n = match.group("n")
                output = int(n) if kind == "output" and n is not None else None
                reference = Reference(kind=kind, target=match.group("id"), output=output)
            found.setdefault(reference.text, reference)
            if len(found) > MAX_REFERENCES:
                return list(found.values())
    return list(found.values())
