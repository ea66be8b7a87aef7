"""The strict scripted server's tests: a started server and the real `anthropic` client over HTTP (`api`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from strict_kit import Api

from jupyter_agent.testing import ScriptedServer, Text, Turn
from jupyter_agent.testing.script import Script


@pytest.fixture
def api() -> Iterator[Any]:
    """`api(script=[...], **ScriptedServer options)` → a started `Api`; defaults to ten one-word answers."""
    servers: list[ScriptedServer] = []

    def start(script: Script | None = None, **options: Any) -> Api:
        turns = script if script is not None else [Turn(blocks=[Text("ok")]) for _ in range(10)]
        server = ScriptedServer(turns, **options).start()
        servers.append(server)
        return Api(server)

    yield start
    for server in servers:
        server.stop()
