"""Bash in a real kernel whose start-up environment holds the API key: in the OS sandbox the key is out of
reach (/proc shows only the sandbox), writes outside the roots fail, the network is cut; without a working
bwrap `%agent status` says "unsandboxed", only bypassPermissions runs a command without asking, and an allow rule
does not (headless: refused with the hint) until `AgentMagics.bash_sandbox = "off"`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from frontend import AgentKernel

from jupyter_agent.permissions.bubblewrap import check_sandbox
from jupyter_agent.testing import TEST_API_KEY, Text, ToolUse, Turn

pytestmark = pytest.mark.kernel

PROBE = (
    "cat /proc/*/environ | tr '\\0' '\\n'; cat /proc/$PPID/environ | tr '\\0' '\\n'; "
    "touch ../outside.txt && echo WROTE-OUTSIDE; "
    "(echo hi > /dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo NETWORK-REACHED; echo end"
)


def bash_turns(command: str) -> list[Turn]:
    return [Turn(blocks=[ToolUse(name="Bash", input={"command": command})]), Turn(blocks=[Text("done")])]


def tool_result_text(request: dict[str, Any]) -> str:
    blocks = [
        b
        for b in request["messages"][-1]["content"]
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]
    return "".join(part["text"] for b in blocks for part in b["content"] if part["type"] == "text")


def run_probe(
    agent_kernel: AgentKernel, tmp_path: Path, env: dict[str, str] | None = None
) -> tuple[str, str]:
    import socket

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        frontend, scripted = agent_kernel(
            bash_turns(PROBE.format(port=server.getsockname()[1])), headless=True, env=env
        )
        status = frontend.run("%config AgentMagics.enable_bash = True\n%agent status", timeout=60)
        cell = frontend.run("%%agent --mode bypassPermissions\nprobe", timeout=120)
        assert cell.reply is not None and cell.reply["status"] == "ok", cell.text()
        return status.text(), tool_result_text(scripted.requests[1])


@pytest.mark.skipif(
    check_sandbox().bubblewrap is None, reason=f"no working bubblewrap: {check_sandbox().problem}"
)
def test_in_the_sandbox_the_kernels_key_is_out_of_reach_and_outside_writes_and_network_fail(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    status, output = run_probe(agent_kernel, tmp_path)
    assert "bash:     sandboxed (bubblewrap)" in status
    assert "end" in output.splitlines()  # the probe ran to its end
    assert TEST_API_KEY not in output
    assert "WROTE-OUTSIDE" not in output and not (tmp_path.parent / "outside.txt").exists()
    assert "NETWORK-REACHED" not in output


def test_without_a_working_bwrap_bash_runs_unsandboxed_and_status_says_so(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    status, output = run_probe(
        agent_kernel, tmp_path, env={"JUPYTER_AGENT_BWRAP": str(tmp_path / "no-bwrap")}
    )
    assert (
        f"bash:     unsandboxed: JUPYTER_AGENT_BWRAP names {tmp_path / 'no-bwrap'}, which does not exist"
        in status
    )
    assert 'every command asks, even under an allow rule (AgentMagics.bash_sandbox = "required")' in status
    assert (
        "WROTE-OUTSIDE" in output and (tmp_path.parent / "outside.txt").exists()
    )  # bypassPermissions: it ran
    assert "NETWORK-REACHED" in output


def test_without_a_sandbox_an_allow_rule_no_longer_runs_bash_headless_until_bash_sandbox_is_off(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    touch = "touch ../outside-bash.txt && echo TOUCHED"
    frontend, scripted = agent_kernel(
        [*bash_turns(touch), *bash_turns(touch)], headless=True, env={"JUPYTER_AGENT_BWRAP": "/nonexistent"}
    )
    refused = frontend.run("%%agent --allow Bash\ntouch a file next to the project", timeout=120)
    assert refused.reply is not None and refused.reply["status"] == "ok", refused.text()
    told = tool_result_text(scripted.requests[1])
    assert told.startswith(
        "DENIED: Bash: no one could approve Bash touch ../outside-bash.txt && echo TOUCHED: "
    )
    assert "Unsandboxed: JUPYTER_AGENT_BWRAP names /nonexistent, which does not exist" in told
    assert 'AgentMagics.bash_sandbox = "off"' in told
    assert "unsandboxed" in refused.text().lower()  # the person sees why too
    assert not (tmp_path.parent / "outside-bash.txt").exists()
    frontend.run('%config AgentMagics.bash_sandbox = "off"')
    status = frontend.run("%agent status", timeout=60).text()
    assert 'allow rules run commands unsandboxed (AgentMagics.bash_sandbox = "off")' in status
    frontend.run("%%agent --allow Bash\nnow do it", timeout=120)
    assert "TOUCHED" in tool_result_text(scripted.requests[3])
    assert (tmp_path.parent / "outside-bash.txt").exists()
