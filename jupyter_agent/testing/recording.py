"""What the scripted server remembers of each request."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, kw_only=True)
class RecordedRequest:
    """One request as the server received it. `index` is the script entry it consumed, if any; `refusal` is the
    error the server answered instead ("400 invalid_request_error: …"), if it refused the request."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any
    index: int | None
    refusal: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "path": self.path,
            "headers": dict(self.headers),
            "body": self.body,
            "index": self.index,
            "refusal": self.refusal,
        }


class Unscripted(Exception):
    """No turn for a request (script exhausted or the script callable raised); answered as a 500."""
