"""Pytest plugin (entry point `jupyter_agent`): the `scripted_server` fixture.

Installed with the package, pytest loads it automatically; in a plain checkout use
`pytest -p jupyter_agent.testing.plugin`. Do not also list it in `pytest_plugins` once installed:
pytest refuses to register one module twice.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

import pytest

from .script import Script
from .server import TEST_API_KEY, ScriptedServer


class ScriptedServerFactory(Protocol):
    """`scripted_server(script)`: start a server for `script` and point the environment at it."""

    def __call__(self, script: Script, /) -> ScriptedServer: ...


@pytest.fixture
def scripted_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedServerFactory]:
    """Factory fixture: `srv = scripted_server([Turn(...), ...])` returns a started `ScriptedServer`.

    It sets `ANTHROPIC_BASE_URL` to the server and `ANTHROPIC_API_KEY` to a dummy key (and unsets
    `ANTHROPIC_AUTH_TOKEN`), so code that builds `anthropic.Anthropic()` from the environment talks to
    the script. Servers are stopped at teardown; the last one started owns the environment.
    """
    servers: list[ScriptedServer] = []

    def start(script: Script, /) -> ScriptedServer:
        server = ScriptedServer(script).start()
        servers.append(server)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_API_KEY)
        monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
        return server

    yield start
    for server in servers:
        server.stop()
