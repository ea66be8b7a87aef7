"""Every hook event of Claude Code's hooks reference that this package meets, fired in a real kernel through the
real SDK and the scripted server, to a real hook script (tests/fixtures/hooks/check_event.py) that checks its
stdin against the documented fields of its event and records what it saw: each event arrives, valid, in the
order the session meets it — from SessionStart to the SessionEnd of the kernel's shutdown."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from frontend import AgentKernel, result_text, tool_results

from jupyter_agent.testing import Fault, Text, ToolUse, Turn
from jupyter_agent.tools.command_hook_run import HOOK_EVENTS

pytestmark = pytest.mark.kernel

CHECK = Path(__file__).resolve().parents[1] / "fixtures" / "hooks" / "check_event.py"


def every_event_hooked() -> dict[str, Any]:
    hook = {"type": "command", "command": f'"{sys.executable}" "{CHECK}"'}
    return {"hooks": {event: [{"hooks": [hook]}] for event in HOOK_EVENTS}}


def records(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def test_every_event_reaches_a_real_hook_valid_and_in_order(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(every_event_hooked()))
    (tmp_path / "notes.md").write_text("March is missing\n")
    script = [
        Turn(blocks=[ToolUse(name="Write", input={"file_path": "out.md", "content": "x\n"})]),
        Turn(blocks=[ToolUse(name="Read", input={"file_path": "notes.md"})]),
        Turn(blocks=[ToolUse(name="Read", input={"file_path": "missing.txt"})]),
        Turn(
            blocks=[
                ToolUse(
                    name="Task",
                    input={"description": "Find the notes", "prompt": "Where are the notes?"},
                )
            ]
        ),
        Turn(blocks=[Text("The notes are in notes.md.")]),  # the sub-agent's answer
        Turn(blocks=[Text("Done.")]),
        Turn(blocks=[Text("Summary: the notes were read.")]),  # `%agent compact`'s summary
        Turn(fault=Fault.error(error_type="invalid_request_error", message="prompt is too long")),
    ]
    frontend, server = agent_kernel(script, headless=True)  # nobody can approve: the Write is refused
    assert frontend.run("%agent trust").text().startswith(f"trusted {tmp_path}")
    frontend.run("%agent reset")  # the trusted project's hooks apply from here; nothing had started yet
    log = tmp_path / "hook-log.jsonl"
    assert records(log) == []

    frontend.run("%%agent\nRead the notes.", timeout=120)
    refused = result_text(tool_results(server.requests[1])[0])
    assert refused.startswith("DENIED:") and not (tmp_path / "out.md").exists()
    frontend.run("%agent compact", timeout=120)
    frontend.run("%agent reset")
    frontend.run("%%agent\nAgain.", timeout=120)
    frontend.km.shutdown_kernel(now=False)  # a clean shutdown, as Jupyter's own: the interpreter exits
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not any(
        r["event"] == "SessionEnd" and r["matched"] == "other" for r in records(log)
    ):
        time.sleep(0.2)

    seen = records(log)
    assert [(r["event"], r["matched"]) for r in seen] == [
        ("SessionStart", "startup"),
        ("UserPromptSubmit", None),
        ("PreToolUse", "Write"),
        ("PermissionRequest", "Write"),
        ("Notification", "permission_prompt"),
        ("PreToolUse", "Read"),
        ("PostToolUse", "Read"),
        ("PreToolUse", "Read"),
        ("PostToolUseFailure", "Read"),
        ("PreToolUse", "Task"),
        ("SubagentStart", "Explore"),
        ("SubagentStop", "Explore"),
        ("PostToolUse", "Task"),
        ("Stop", None),
        ("PreCompact", "manual"),
        ("PostCompact", "manual"),
        ("SessionStart", "compact"),
        ("SessionEnd", "clear"),
        ("SessionStart", "clear"),
        ("UserPromptSubmit", None),
        ("StopFailure", None),
        ("SessionEnd", "other"),
    ]
    assert {r["event"] for r in seen} == set(HOOK_EVENTS)  # every event the package fires was seen
    assert [(r["event"], r["problems"]) for r in seen if r["problems"]] == []
    by_event = {r["event"]: r["input"] for r in seen}
    assert by_event["UserPromptSubmit"]["prompt"] == "Again."
    assert by_event["Stop"]["last_assistant_message"] == "Done."
    assert by_event["SubagentStop"]["last_assistant_message"] == "The notes are in notes.md."
    assert by_event["PostToolUseFailure"]["error"].startswith("FILE_NOT_FOUND")
    assert by_event["PostCompact"]["compact_summary"].startswith("Summary: the notes were read.")
    assert "prompt is too long" in by_event["StopFailure"]["error"]
    read = next(r["input"] for r in seen if r["event"] == "PostToolUse" and r["matched"] == "Read")
    assert read["tool_input"]["file_path"] == str(tmp_path / "notes.md")
    assert "March is missing" in read["tool_response"]["file"]["content"]
    assert all(r["input"]["cwd"] == str(tmp_path) for r in seen)
    first_session = {r["input"]["session_id"] for r in seen[:17]}
    assert len(first_session) == 1 and first_session != {""}  # one saved session until the reset
