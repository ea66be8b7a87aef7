"""One result shape for success and failure, so the loop, the UI and the model never special-case a tool."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal, NewType, TypeAlias, get_args

from ..masking import shorten

#: The package's own error identifiers. A tool elsewhere declares its own with `error_code("NAME")`.
BuiltinErrorCode = Literal[
    "INVALID_ARGS",
    "UNKNOWN_TOOL",
    "FILE_NOT_FOUND",
    "TEXT_NOT_FOUND",
    "TEXT_MULTIPLE_MATCHES",
    "NO_CHANGE",
    "OUTSIDE_ROOTS",
    "NOT_READ",
    "STALE_READ",
    "FILE_TOO_LARGE",
    "BINARY_FILE",
    "IS_DIRECTORY",
    "CELL_NOT_FOUND",
    "NOTEBOOK_NOT_FOUND",
    "TIMEOUT",
    "HTTP_ERROR",
    "NETWORK_ERROR",
    "DENIED",
    "INTERRUPTED",
    "EXECUTION_ERROR",
    "NOT_AVAILABLE",
    "PROTECTED_PATH",
    "ADDRESS_NOT_ALLOWED",
]
#: An identifier a tool declared with `error_code()`.
DeclaredErrorCode = NewType("DeclaredErrorCode", str)
#: What `ToolResult.error` and `ToolError` take: a built-in code, or one a tool declared.
ErrorCode: TypeAlias = BuiltinErrorCode | DeclaredErrorCode

_CODE = re.compile(r"[A-Z][A-Z0-9_]*\Z")
_CODES: set[str] = set(get_args(BuiltinErrorCode))


def error_code(name: str) -> DeclaredErrorCode:
    """Declare a tool's own error identifier, once, in the tool's module.

    `PAGE_NOT_FOUND = error_code("PAGE_NOT_FOUND")`; the name is UPPER_SNAKE like the built-in ones, which
    it may not shadow.
    """
    if not _CODE.match(name):
        raise ValueError(f"error code {name!r} must be UPPER_SNAKE_CASE, e.g. 'PAGE_NOT_FOUND'")
    if name in get_args(BuiltinErrorCode):
        raise ValueError(f"{name} is a built-in error code; use it as the string {name!r}")
    _CODES.add(name)
    return DeclaredErrorCode(name)


def known_error_codes() -> frozenset[str]:
    """Every code in use: the built-in ones and those tools declared."""
    return frozenset(_CODES)


@dataclass(frozen=True, kw_only=True)
class Issue:
    """One validation problem, addressed by JSON pointer so the model can find the field."""

    path: str
    message: str
    expected: str | None = None
    received: str | None = None


@dataclass(frozen=True, kw_only=True)
class ImageContent:
    """An image for the model (base64), e.g. a PNG the agent read or a plot a cell produced."""

    media_type: str
    data: str

    def to_block(self) -> dict[str, Any]:
        """The Anthropic `image` content block (base64 source)."""
        return {
            "type": "image",
            "source": {"type": "base64", "media_type": self.media_type, "data": self.data},
        }


@dataclass(frozen=True, kw_only=True)
class ToolResult:
    """What a tool call produced: `content` goes to the model, `summary` and `diff` only to people."""

    content: str
    is_error: bool = False
    error_code: ErrorCode | None = None
    images: tuple[ImageContent, ...] = ()
    summary: str = ""
    diff: str | None = None
    issues: tuple[Issue, ...] = ()
    data: dict[str, Any] = field(default_factory=dict[str, Any])

    @classmethod
    def ok(cls, content: str, *, summary: str = "", diff: str | None = None, **kw: Any) -> ToolResult:
        """A success; the summary defaults to the first line of the content."""
        return cls(content=content, summary=summary or _first_line(content), diff=diff, **kw)

    @classmethod
    def error(
        cls, code: ErrorCode, message: str, *, summary: str = "", issues: tuple[Issue, ...] = (), **kw: Any
    ) -> ToolResult:
        """`message` already says what went wrong and how to fix it; the code is prefixed for the model."""
        return cls(
            content=f"{code}: {message}",
            is_error=True,
            error_code=code,
            summary=summary or code,
            issues=issues,
            **kw,
        )

    def to_block(self, tool_use_id: str) -> dict[str, Any]:
        """The Anthropic `tool_result` content block for this result."""
        blocks: list[dict[str, Any]] = [{"type": "text", "text": self.content or "(no output)"}]
        blocks += [image.to_block() for image in self.images]
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id, "content": blocks}
        if self.is_error:
            block["is_error"] = True
        return block


def _first_line(text: str, limit: int = 100) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return shorten(line, limit)
