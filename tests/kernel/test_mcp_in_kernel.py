"""MCP servers in a real kernel: they connect in the background (a hanging one holds nothing up), `%agent mcp`
shows their state, `%agent mcp restart` restarts one, and a changed `mcp_servers` setting applies at the
next cell."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from frontend import AgentKernel, KernelFrontend
from test_agent_magic import result_text, tool_results

from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel

ECHO = {
    "command": sys.executable,
    "args": [str(Path(__file__).parents[1] / "fixtures" / "mcp_echo_server.py")],
}
HANGS = {"command": sys.executable, "args": ["-c", "import time; time.sleep(600)"]}


def wait_for_state(
    frontend: KernelFrontend, line_start: str, timeout: float = 120, seen: list[str] | None = None
) -> str:
    """`%agent mcp` until a line starts with `line_start` (servers connect in the background); every output
    is added to `seen`."""
    deadline = time.monotonic() + timeout
    while True:
        text = frontend.run("%agent mcp").text()
        if seen is not None:
            seen.append(text)
        if any(line.startswith(line_start) for line in text.splitlines()):
            return text
        assert time.monotonic() < deadline, text
        time.sleep(0.5)


def test_servers_connect_in_the_background_are_listed_restarted_and_follow_the_setting(
    agent_kernel: AgentKernel,
) -> None:
    script = [
        Turn(blocks=[ToolUse(name="mcp__echo__echo", input={"text": "hi"})]),
        Turn(blocks=[Text("done")]),
    ]
    frontend, server = agent_kernel(script)
    frontend.run(f"%config AgentMagics.mcp_servers = {{'hangs': {HANGS!r}, 'echo': {ECHO!r}}}")
    first = frontend.run("%agent mcp", timeout=30).text()
    # The hanging server is still starting, and the command answered anyway.
    assert "hangs  connecting" in first, first

    seen = [first]
    listed = wait_for_state(frontend, "echo   connected   5 tools", seen=seen)
    assert "hangs  connecting" in listed or "hangs  failed" in listed
    # The line the server's connection printed, once, at the next cell after it happened.
    assert "\n".join(seen).count("jupyter_agent: MCP server 'echo' connected: 5 tools") == 1

    frontend.run("%%agent\necho hi", timeout=60)
    assert result_text(tool_results(server.requests[1])[0]) == "echo: hi"
    sent = {tool["name"] for tool in server.requests[0]["tools"]}
    assert {"mcp__echo__echo", "ListMcpResources", "ReadMcpResource"} <= sent
    assert not any(name.startswith("mcp__hangs__") for name in sent)

    restarted = frontend.run("%agent mcp restart echo").text()
    assert restarted.startswith("restarting echo; they connect in the background")
    wait_for_state(frontend, "echo   connected   5 tools")
    unknown = frontend.run("%agent mcp restart nope").text()
    assert "no MCP server named 'nope' (servers: echo, hangs)" in unknown

    frontend.run(f"%config AgentMagics.mcp_servers = {{'echo': {ECHO!r}}}")
    after = wait_for_state(frontend, "echo  connected   5 tools")
    assert "hangs" not in after


RAW = {"command": sys.executable, "args": [str(Path(__file__).parents[1] / "fixtures" / "mcp_raw_server.py")]}
QUIRKY = {**ECHO, "args": [*ECHO["args"], "--quirky"]}


def test_a_skipped_tool_is_named_the_timeout_is_a_setting_and_progress_shows_on_the_card(
    agent_kernel: AgentKernel,
) -> None:
    script = [
        Turn(
            blocks=[
                ToolUse(name="mcp__q__stall", input={"seconds": 30}),
                ToolUse(name="mcp__q__steps", input={"count": 3}),
            ]
        ),
        Turn(blocks=[Text("done")]),
    ]
    frontend, server = agent_kernel(script)
    frontend.run(f"%config AgentMagics.mcp_servers = {{'raw': {RAW!r}, 'q': {QUIRKY!r}}}")
    frontend.run("%config AgentMagics.mcp_timeout = 1.0")
    listed = wait_for_state(frontend, "raw  connected   4 tools")
    assert (
        "tool 'broken' skipped: its inputSchema has type 'array'; a tool's arguments are a JSON object"
        in listed
    )
    wait_for_state(frontend, "q    connected   9 tools")
    cell = frontend.run("%%agent --mode bypassPermissions\ngo", timeout=60)
    stalled, stepped = tool_results(server.requests[1])
    assert result_text(stalled).startswith(
        "TIMEOUT: stall (MCP server 'q') did not answer or report progress for 1 s"
    )
    assert result_text(stepped) == "did 3 steps"
    assert "running · 3/3 step 3" in cell.text()


def test_a_projects_mcp_json_server_waits_for_approval_then_starts_and_its_tool_runs(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    """Issue #44: a cloned project's `.mcp.json` starts nothing by itself; `%agent mcp` says where the server is
    configured and why it waits; `%agent mcp approve` starts it and its tool runs. `${VAR:-default}` in its args
    is expanded as Claude Code documents."""
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / ".git").mkdir()
    mcp_json = tmp_path / ".mcp.json"
    fixtures = Path(ECHO["args"][0]).parent
    args = [f"${{ECHO_FIXTURES:-{fixtures}}}/mcp_echo_server.py"]
    mcp_json.write_text(json.dumps({"mcpServers": {"echo": {"command": sys.executable, "args": args}}}))
    script = [
        Turn(blocks=[ToolUse(name="mcp__echo__echo", input={"text": "hi"})]),
        Turn(blocks=[Text("done")]),
    ]
    frontend, server = agent_kernel(script, env={"HOME": str(home)})
    listed = frontend.run("%agent mcp").text()
    assert listed.startswith(f"echo  waiting  (project: {mcp_json})"), listed
    assert "not started: a project's server waits for your approval: %agent mcp approve echo" in listed
    time.sleep(2)
    assert "connected" not in frontend.run("%agent mcp").text()  # it never started

    said = frontend.run("%agent mcp approve echo").text()
    assert f"approved the MCP server 'echo' of {tmp_path}" in said
    wait_for_state(frontend, "echo  connected   5 tools  (project: ")
    frontend.run("%%agent\necho hi", timeout=60)
    assert result_text(tool_results(server.requests[1])[0]) == "echo: hi"
    assert json.loads((home / ".jupyter_agent" / "mcp_approvals.json").read_text()) == {
        "projects": {str(tmp_path): ["echo"]}
    }
