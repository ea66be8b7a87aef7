"""`ToolError`: how a tool (or a sandbox helper) stops with a stable code; the dispatcher turns it into a result."""

from __future__ import annotations

from .result import ErrorCode


class ToolError(Exception):
    """Raised inside a tool; becomes `ToolResult.error(code, message)` — never a crash of the loop."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message
