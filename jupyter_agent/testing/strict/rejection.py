"""A request the strict server refuses, as the API's error: HTTP status, `error.type` and message."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rejection:
    """The error the API answers with; `message` is the real API's wording where the docs or the wire give it."""

    message: str
    error_type: str = "invalid_request_error"
    status: int = 400


def invalid(message: str) -> Rejection:
    """A 400 `invalid_request_error`."""
    return Rejection(message)
