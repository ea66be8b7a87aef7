"""Regular expressions the model writes, run by RE2: linear time in the text, so no pattern can hang a tool.

Python's `re` backtracks: `(a*)*b` or a glob such as `*a*a*a*…*b` takes exponential time on a long name, and
the C matcher holds the GIL meanwhile, so the kernel stops answering, Interrupt included. RE2 (google-re2)
has no backtracking; it does not support backreferences or lookaround either — like ripgrep, which the Grep
tool runs — and a pattern that uses them is refused with a message saying so.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol, cast

import re2

from ..masking import clip
from .errors import ToolError


class Match(Protocol):
    def start(self) -> int: ...
    def end(self) -> int: ...


class Matcher(Protocol):
    """The part of a compiled RE2 pattern the tools use."""

    @property
    def pattern(self) -> str: ...
    def search(self, text: str) -> Match | None: ...
    def fullmatch(self, text: str) -> Match | None: ...
    def finditer(self, text: str) -> Iterator[Match]: ...


_ERROR = cast(type[Exception], re2.error)  # pyright: ignore[reportUnknownMemberType]
#: Memory RE2 may use for one pattern (its own bound: a bigger automaton is a compile error, not a hang).
MAX_MEMORY = 64 << 20


def compile_linear(pattern: str, *, what: str, ignore_case: bool = False, dot_all: bool = False) -> Matcher:
    """`pattern` compiled by RE2, or `INVALID_ARGS` naming `what` and the reason."""
    options = re2.Options()  # pyright: ignore[reportUnknownMemberType]
    options.max_mem = MAX_MEMORY  # pyright: ignore[reportUnknownMemberType]
    options.case_sensitive = not ignore_case  # pyright: ignore[reportUnknownMemberType]
    options.dot_nl = dot_all  # pyright: ignore[reportUnknownMemberType]
    options.log_errors = False  # pyright: ignore[reportUnknownMemberType]
    try:
        compiled = re2.compile(pattern, options)  # pyright: ignore[reportUnknownMemberType]
    except _ERROR as exc:
        reason: object = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise ToolError(
            "INVALID_ARGS",
            f"{what} {clip(pattern, 200)!r} is not a pattern the linear-time matcher accepts ({reason}); "
            "backreferences and lookaround are not supported (as in ripgrep)",
        ) from None
    return cast(Matcher, compiled)
