"""A request the strict server refuses, as the API's error: HTTP status, `error.type`, message and `error.details`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rejection:
    """The error the API answers with; `message` is the real API's wording where the docs or the wire give it.

    `error_code` goes out as `error.details.error_code` (the docs name codes such as `tool_reference_unresolved`
    for some 400s, without their messages)."""

    message: str
    error_type: str = "invalid_request_error"
    status: int = 400
    error_code: str | None = None

    def summary(self) -> str:
        """One line for logs and `RecordedRequest.refusal`: "400 invalid_request_error: … [error_code]"."""
        code = f" [{self.error_code}]" if self.error_code else ""
        return f"{self.status} {self.error_type}: {self.message}{code}"


def invalid(message: str, *, error_code: str | None = None) -> Rejection:
    """A 400 `invalid_request_error`."""
    return Rejection(message, error_code=error_code)
