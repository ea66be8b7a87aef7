""" "Always allow in this project" in a real kernel: the click writes the call's rule to the project's
.claude/settings.local.json (merged into what it held), a new kernel runs the same call without asking, and
`%agent rules` names the rule with its file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from frontend import AgentKernel

from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel


def _write(name: str, content: str) -> list[Turn]:
    call = ToolUse(name="Write", input={"file_path": name, "content": content})
    return [Turn(blocks=[call]), Turn(blocks=[Text("written")])]


def test_always_allow_in_this_project_survives_a_kernel_restart(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    local = tmp_path / ".claude" / "settings.local.json"
    local.parent.mkdir()
    local.write_text(json.dumps({"env": {"KEEP": "me"}, "permissions": {"deny": ["Read(secret.txt)"]}}))
    frontend, _ = agent_kernel(_write("notes.txt", "first"))
    assert frontend.run("%agent trust").text().startswith(f"trusted {tmp_path}")
    cell = frontend.execute("%%agent\nwrite the notes")
    frontend.click("Always allow in this project")
    frontend.wait(lambda: cell.done, 90, "the agent cell")
    assert (tmp_path / "notes.txt").read_text() == "first"
    saved = json.loads(local.read_text())
    [rule] = saved["permissions"]["allow"]
    assert rule.startswith("Write")  # the rule the approval offered
    assert f"always allowed in this project ({rule}, in .claude/settings.local.json)" in cell.text()
    assert saved["env"] == {"KEEP": "me"} and saved["permissions"]["deny"] == ["Read(secret.txt)"]  # merged
    assert f"{rule} added to {local}" in cell.text()
    frontend.close()

    again, _ = agent_kernel(_write("more.txt", "second"), headless=True)  # a new kernel; nobody to ask
    done = again.run("%%agent\nwrite the notes again", timeout=90)
    assert (tmp_path / "more.txt").read_text() == "second", done.text()
    rules = again.run("%agent rules").text()
    line = next(text for text in rules.splitlines() if rule in text)
    assert line.startswith("allow") and "settings.local.json" in rules
