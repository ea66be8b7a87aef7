"""The `project_shell` and `serve` fixtures of the Claude Code project tests: a real IPython shell whose working
directory is a git project with the given files (its HOME the test's own), and the scripted server it talks to."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

from jupyter_agent.testing import TEST_API_KEY, ScriptedServer, Turn

Files = dict[str, str | dict[str, Any]]
ProjectShell = Callable[[Files], InteractiveShell]


@pytest.fixture
def project_shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ProjectShell]:
    """A shell whose working directory is a git project with the given files, loaded after they exist."""
    shells: list[InteractiveShell] = []
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(project)
    monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_API_KEY)
    monkeypatch.delenv("ANTHROPIC_MODEL", raising=False)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)

    def make(files: Files) -> InteractiveShell:
        for name, content in files.items():
            path = project / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content if isinstance(content, str) else json.dumps(content))
        ip = InteractiveShell()
        ip.run_line_magic("load_ext", "jupyter_agent")
        shells.append(ip)
        return ip

    yield make
    for ip in shells:
        ip.run_line_magic("unload_ext", "jupyter_agent")
        ip.clear_instance()


@pytest.fixture
def serve(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[list[Turn]], ScriptedServer]]:
    started: list[ScriptedServer] = []

    def start(turns: list[Turn]) -> ScriptedServer:
        server = ScriptedServer(turns).start()
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


Serve = Callable[[list[Turn]], ScriptedServer]
