"""A stand-in for a notebook page that opened the review comm (the labextension that draws what it gets is
TypeScript; the e2e tests click it in JupyterLab and Notebook 7): it records what the kernel sends."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Page:
    """A page that opened the review comm: what the kernel sent it."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send(self, data: dict[str, Any] | None = None) -> None:
        assert data is not None
        self.sent.append(data)

    def on_msg(self, callback: Callable[[Any], None] | None) -> None: ...
    def on_close(self, callback: Callable[[Any], None] | None) -> None: ...

    def kinds(self) -> list[str]:
        return [message["type"] for message in self.sent]
