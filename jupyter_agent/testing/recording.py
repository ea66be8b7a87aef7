"""What the scripted server remembers of each request."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, kw_only=True)
class RecordedRequest:
    """One request as the server received it. `index` is the script entry it consumed, if any; `refusal` is the
    error the server answered instead ("400 invalid_request_error: …"), if it refused the request;
    `available_tools` the names of the tools available at the end of its conversation, as the strict server read
    `tools` and the system messages' tool changes (None when not strict or not admitted)."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any
    index: int | None
    refusal: str | None = None
    available_tools: tuple[str, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "path": self.path,
            "headers": dict(self.headers),
            "body": self.body,
            "index": self.index,
            "refusal": self.refusal,
            "available_tools": None if self.available_tools is None else list(self.available_tools),
        }


class Unscripted(Exception):
    """No turn for a request (script exhausted or the script callable raised); answered as a 500."""
