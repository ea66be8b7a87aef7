"""The MCP SDK takes seconds to import: a session without MCP servers must never load it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from jupyter_agent.testing import TEST_API_KEY

BUILD_SESSION = """
import json, sys
from jupyter_agent.host.kernel_agent import KernelAgent
from jupyter_agent.settings import AgentSettings

servers = json.loads(sys.argv[1])
agent = KernelAgent(shell=None, settings=AgentSettings(mcp_servers=servers))
tools = sorted(agent.session.pool.merged())
agent.close()
print(json.dumps({"mcp_imported": "mcp" in sys.modules, "tools": len(tools)}))
"""


def _build_session(servers: dict[str, object], cwd: Path) -> dict[str, object]:
    """Build a session in a fresh interpreter, so nothing imported by other tests counts."""
    env = {**os.environ, "ANTHROPIC_API_KEY": TEST_API_KEY}
    env.pop("JPY_SESSION_NAME", None)
    done = subprocess.run(
        [sys.executable, "-c", BUILD_SESSION, json.dumps(servers)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_session_without_mcp_servers_never_imports_the_mcp_sdk(tmp_path: Path) -> None:
    built = _build_session({}, tmp_path)
    assert built["mcp_imported"] is False
    assert isinstance(built["tools"], int) and built["tools"] > 0


def test_a_session_with_an_mcp_server_loads_the_sdk_to_connect_it(tmp_path: Path) -> None:
    # The server exits at once (it fails to start); starting it is what loads the SDK.
    built = _build_session({"quits": {"command": sys.executable, "args": ["-c", "pass"]}}, tmp_path)
    assert built["mcp_imported"] is True
