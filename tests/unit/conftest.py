"""The `harness` fixture: a session on a real worker thread, talking to the scripted server through the
real SDK over HTTP (no mocks). The agent, sessions and undo tests use it.

pytest puts the folder of a conftest outside any package on sys.path, so every unit test imports the shared
kits beside this file: `agent_testkit` (the session harness) and `dispatch_harness` (tool calls
through the real Dispatcher)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from agent_testkit import Harness, HarnessFactory

from jupyter_agent.agent import AgentConfig, AgentSession, AgentWorker
from jupyter_agent.permissions.policy import Mode
from jupyter_agent.testing import TEST_API_KEY, ScriptedServer
from jupyter_agent.testing.script import Script
from jupyter_agent.tools import PermissionPolicy, Sandbox, ToolContext, ToolPool
from jupyter_agent.tools.core import AnyTool


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[HarnessFactory]:
    """`harness(script, tools=[...], mode="default", session_options={...}, server_options={...},
    **AgentConfig fields)` → a started `Harness`. `session_options` go to `AgentSession` (project,
    sessions_root, user_memory), `server_options` to `ScriptedServer` (e.g. `rejects`)."""
    made: list[Harness] = []

    def make(
        script: Script,
        *,
        tools: Sequence[AnyTool] = (),
        mode: Mode = "default",
        session_options: dict[str, Any] | None = None,
        server_options: dict[str, Any] | None = None,
        **config: Any,
    ) -> Harness:
        server = ScriptedServer(script, **(server_options or {})).start()
        pool = ToolPool()
        pool.set_source("test", list(tools))
        session = AgentSession(
            pool=pool,
            ctx=ToolContext(sandbox=Sandbox.at(tmp_path)),
            config=AgentConfig(**{"base_url": server.url, "api_key": TEST_API_KEY, **config}),
            policy=PermissionPolicy(mode=mode),
            **{"user_memory": tmp_path / "no-user-memory" / "AGENTS.md", **(session_options or {})},
        )
        made.append(Harness(server, session, AgentWorker(name="test-agent")))
        return made[-1]

    yield make
    for h in made:
        if h.worker.running:
            h.worker.submit(h.session.aclose()).result(5)
        h.worker.shutdown()
        h.server.stop()
