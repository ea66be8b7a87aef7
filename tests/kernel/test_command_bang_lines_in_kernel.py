"""A command's `` !`cmd` `` and `@file` in a real kernel: the output and the file's text reach the model's request
(through Bash in its sandbox and Read, under the project's rules); before `%agent trust` nothing runs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from frontend import AgentKernel

from jupyter_agent.testing import Text, Turn

pytestmark = pytest.mark.kernel

COMMAND = "---\nallowed-tools: Bash(git status:*), Read\n---\nStatus: !`git status --short`\nPlan: @plan.md\n"


def test_a_commands_bang_line_and_file_reference_reach_the_request_once_trusted(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "new.py").write_text("x = 1\n")
    (tmp_path / "plan.md").write_text("ship on friday\n")
    (tmp_path / ".claude" / "commands").mkdir(parents=True)
    (tmp_path / ".claude" / "commands" / "status.md").write_text(COMMAND)
    settings = {"permissions": {"allow": ["Bash(git status:*)"]}}
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(settings))
    frontend, server = agent_kernel([Turn(blocks=[Text("ok")])], env={"HOME": str(tmp_path / "home")})
    frontend.run("%config AgentMagics.enable_bash = True")
    refused = frontend.run("%agent /status").text()
    assert "its !`…` lines run nothing until you trust this project: run %agent trust" in refused, refused
    assert server.requests == []
    frontend.run("%agent trust")
    frontend.run("%agent /status")
    (request,) = server.requests
    sent = json.dumps(request["messages"][-1])
    assert "Status: ?? " in sent and "new.py" in sent and "!`git status" not in sent
    assert "Contents of @plan.md:" in sent and "ship on friday" in sent
