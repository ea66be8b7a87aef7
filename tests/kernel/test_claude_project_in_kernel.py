"""A Claude Code project as it is (tests/fixtures/claude_project: settings with allow/ask/deny and a hook, two
skills, an agent, a command) in a real kernel, through the real SDK and the scripted server."""

from __future__ import annotations

import json
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from frontend import AgentKernel, KernelFrontend, result_text, tool_results

from jupyter_agent.base.harness_texts import request_text
from jupyter_agent.testing import (
    Citation,
    ScriptedServer,
    SearchHit,
    ServerToolUse,
    Text,
    ToolUse,
    Turn,
    WebSearchResult,
)
from jupyter_agent.testing.script import Script

pytestmark = pytest.mark.kernel

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "claude_project"
SECRET = "swordfish-4471"
ECHO = {"command": sys.executable, "args": [str(FIXTURE.parent / "mcp_echo_server.py")]}
ProjectKernel = Callable[..., tuple[KernelFrontend, ScriptedServer]]


@pytest.fixture
def project_kernel(agent_kernel: AgentKernel, tmp_path: Path) -> ProjectKernel:
    """`project_kernel(script, trust=True, files={...})`: the fixture project copied to the notebook's directory
    (with more files if given), the extension loaded there, and the project trusted unless `trust=False`."""

    def start(
        script: Script, *, trust: bool = True, files: dict[str, Any] | None = None
    ) -> tuple[KernelFrontend, ScriptedServer]:
        shutil.copytree(FIXTURE, tmp_path, dirs_exist_ok=True)
        for name, content in (files or {}).items():
            (tmp_path / name).write_text(content if isinstance(content, str) else json.dumps(content))
        frontend, server = agent_kernel(script)
        if trust:
            said = frontend.run("%agent trust").text()
            assert said.startswith(f"trusted {tmp_path}"), said
            frontend.run(
                "%agent reset"
            )  # the definitions read again, now with the trusted project's `model:`
        return frontend, server

    return start


def requests_text(server: ScriptedServer) -> str:
    return "\n".join(json.dumps(body) for body in server.requests)


def test_the_settings_deny_rule_keeps_the_secret_from_the_model_and_the_output(
    project_kernel: ProjectKernel, tmp_path: Path
) -> None:
    """The report: `.claude/settings.json` denied `Read(secret.txt)` and the agent read it anyway."""
    script = [
        Turn(
            blocks=[
                ToolUse(name="Read", input={"file_path": "secret.txt"}),
                ToolUse(name="Read", input={"file_path": str(tmp_path / "secret.txt")}),
                ToolUse(name="Grep", input={"pattern": "launch", "output_mode": "content"}),
                ToolUse(name="NotebookRead", input={"notebook_path": "secret.txt"}),
            ]
        ),
        Turn(blocks=[Text("The file is denied to me.")]),
    ]
    frontend, server = project_kernel(script, trust=False)
    loaded = "\n".join(e.text() for e in frontend.executions.values())
    assert f"jupyter_agent: {tmp_path}/.claude/settings.json: hooks, allow rules" in loaded
    done = frontend.run("%%agent\nWhat is the launch code?", timeout=120)
    results = [result_text(b) for b in tool_results(server.requests[1])]
    assert results[0].startswith(f"DENIED: Read is denied by the rule Read({tmp_path}/**/secret.txt)")
    assert results[1].startswith("DENIED: Read is denied by the rule")
    assert "[1 path was hidden by a deny rule.]" in results[2]
    assert results[3].startswith("DENIED:")
    assert SECRET not in requests_text(server)
    shown = json.dumps(frontend.iopub_log, default=str)
    assert SECRET not in shown
    assert "The file is denied to me." in done.text()
    assert not (tmp_path / "hook-events.jsonl").exists()  # untrusted: the hook never ran
    status = frontend.run("%agent status").text()
    assert (
        f"deny  Read(secret.txt)  → Read({tmp_path}/**/secret.txt)  ({tmp_path}/.claude/settings.json)"
        in status
    )


def test_a_trusted_projects_hook_blocks_a_write_and_its_reason_reaches_the_model(
    project_kernel: ProjectKernel, tmp_path: Path
) -> None:
    script = [
        Turn(
            blocks=[
                ToolUse(
                    name="Write", input={"file_path": "data.csv", "content": "month,sales\n"}, id="toolu_csv"
                ),
            ]
        ),
        Turn(
            blocks=[
                ToolUse(name="Read", input={"file_path": "notes.md"}),
            ]
        ),
        Turn(
            blocks=[
                ToolUse(
                    name="Edit",
                    input={
                        "file_path": "notes.md",
                        "old_string": "March is missing",
                        "new_string": "March is back",
                    },
                )
            ]
        ),
        Turn(blocks=[Text("Notes updated; the CSV is generated.")]),
    ]
    frontend, server = project_kernel(script)
    frontend.run("%%agent\nFix the data and the notes.", timeout=120)
    blocked = result_text(tool_results(server.requests[1])[0])
    assert blocked.startswith("DENIED: Write was blocked by the PreToolUse hook `sh .claude/hooks/guard.sh`")
    assert blocked.endswith("data.csv is generated by make_data.py; change the generator instead")
    assert (tmp_path / "data.csv").read_text() == "month,sales\nJan,10\nFeb,12\n"
    # `Edit(notes.md)` from the settings allows the edit without asking (nobody clicked anything)
    assert "March is back" in (tmp_path / "notes.md").read_text()
    events = [json.loads(line) for line in (tmp_path / "hook-events.jsonl").read_text().splitlines()]
    assert [(e["hook_event_name"], e["tool_name"]) for e in events] == [
        ("PreToolUse", "Write"),
        ("PreToolUse", "Edit"),
    ]
    assert events[0]["tool_input"]["file_path"] == "data.csv" and events[0]["tool_use_id"] == "toolu_csv"
    assert events[0]["cwd"] == str(tmp_path)


def test_a_hook_that_times_out_is_stopped_the_user_is_told_and_the_call_goes_on(
    project_kernel: ProjectKernel, tmp_path: Path
) -> None:
    slow = {
        "hooks": {
            "PreToolUse": [
                {"matcher": "Read", "hooks": [{"type": "command", "command": "sleep 60", "timeout": 1}]}
            ]
        }
    }
    script = [
        Turn(blocks=[ToolUse(name="Read", input={"file_path": "notes.md"})]),
        Turn(blocks=[Text("read")]),
    ]
    frontend, server = project_kernel(script, files={".claude/settings.local.json": slow})
    done = frontend.run("%%agent\nRead the notes.", timeout=120)
    assert "PreToolUse hook `sleep 60`" in done.text()
    assert "failed: it timed out after 1 s and was stopped; the agent went on without it" in done.text()
    assert "March is missing" in result_text(tool_results(server.requests[1])[0])


def test_a_skill_loads_on_demand_and_its_allowed_tools_narrow_the_run(
    project_kernel: ProjectKernel, tmp_path: Path
) -> None:
    script = [
        Turn(blocks=[ToolUse(name="Skill", input={"skill": "summarize", "args": "data.csv"})]),
        Turn(blocks=[ToolUse(name="Write", input={"file_path": "summary.md", "content": "x"})]),
        Turn(blocks=[ToolUse(name="Read", input={"file_path": "data.csv"})]),
        Turn(blocks=[Text("month: text, sales: int; nothing missing.")]),
    ]
    frontend, server = project_kernel(script)
    frontend.run("%%agent --mode bypassPermissions\nSummarise data.csv", timeout=120)
    skill_tool = next(t for t in server.requests[0]["tools"] if t["name"] == "Skill")
    assert (
        "summarize" not in skill_tool["description"]
    )  # the listing is not in the prefix: the opening has it
    opening = [
        result_text(b) for m in server.requests[0]["messages"] for b in tool_results({"messages": [m]})
    ]
    assert (
        "Available skills:\n- plot-column: Plot one column of a DataFrame with matplotlib (project)\n"
        "- summarize: Summarise a CSV file's columns, types and missing values (project)"
    ) in opening
    loaded = result_text(tool_results(server.requests[1])[0])
    assert "Read data.csv, then report each column" in loaded
    assert "- reference.md" in loaded
    refused = result_text(tool_results(server.requests[2])[0])
    assert refused.startswith(
        "DENIED: Write is outside the allowed-tools of the skill 'summarize' (Read, Grep)"
    ), refused
    assert not (tmp_path / "summary.md").exists()
    assert "Jan,10" in result_text(tool_results(server.requests[3])[0])
    assert server.requests[0]["tools"] == server.requests[3]["tools"]  # the tool list stays byte-identical


def test_the_projects_agent_is_a_task_type_with_its_tools_prompt_and_model(
    project_kernel: ProjectKernel,
) -> None:
    reviewer_turns: list[int] = []

    def script(body: dict[str, Any], index: int) -> Turn:
        if "You are a careful code reviewer." in json.dumps(body["messages"]):  # the project agent's prompt
            reviewer_turns.append(index)
            if len(reviewer_turns) == 1:
                return Turn(blocks=[ToolUse(name="Read", input={"file_path": "loader.py"})])
            return Turn(blocks=[Text("loader.py:1: MONTHS lacks March.")])
        if index == 0:
            task = {
                "description": "Review loader",
                "prompt": "Review loader.py.",
                "subagent_type": "reviewer",
            }
            return Turn(blocks=[ToolUse(name="Task", input=task)])
        return Turn(blocks=[Text("The reviewer found one bug.")])

    frontend, server = project_kernel(script)
    frontend.run("%%agent\nHave the reviewer look at loader.py", timeout=120)
    task = next(t for t in server.requests[0]["tools"] if t["name"] == "Task")
    assert task["input_schema"]["properties"]["subagent_type"]["enum"] == [
        "Explore",
        "general-purpose",
        "Plan",
        "reviewer",
    ]
    sub = server.requests[1]
    assert {t["name"] for t in sub["tools"]} == {"Read", "Grep", "Glob"}
    assert sub["model"] == "claude-haiku-5-5"
    assert "loader.py:1: MONTHS lacks March." in result_text(tool_results(server.requests[-1])[0])


def test_a_command_runs_with_its_arguments_model_and_tools(
    project_kernel: ProjectKernel, tmp_path: Path
) -> None:
    script = [
        Turn(
            blocks=[
                ToolUse(
                    name="Edit", input={"file_path": "loader.py", "old_string": "Feb", "new_string": "Mar"}
                )
            ]
        ),
        Turn(blocks=[Text("loader.py:1 lacks March.")]),
    ]
    frontend, server = project_kernel(script)
    frontend.run('%agent /review loader.py "missing months"', timeout=120)
    first = server.requests[0]
    assert request_text(first["messages"][-1]["content"]) == (
        "Review loader.py for bugs, with a focus on missing months. Report each bug with its line."
    )
    assert first["model"] == "claude-sonnet-5-5"
    refused = result_text(tool_results(server.requests[1])[0])
    assert refused.startswith("DENIED: Edit is outside the allowed-tools of the command /review (Read, Grep)")
    assert "Feb" in (tmp_path / "loader.py").read_text()
    listed = frontend.run("%agent skills").text()
    assert "/review FILE [FOCUS]     command (project): Review a file for bugs" in listed


def test_web_search_allowed_by_the_settings_streams_a_card_and_cited_links(
    project_kernel: ProjectKernel,
) -> None:
    hit = SearchHit(
        title="pandas 3.0 <release> notes", url="https://pandas.pydata.org/docs/whatsnew/v3.0.0.html"
    )
    script = [
        Turn(
            blocks=[
                ServerToolUse(input={"query": "pandas 3 copy on write"}),
                WebSearchResult(results=[hit]),
                Text(
                    "Copy-on-Write is the default in pandas 3.",
                    citations=[Citation(url=hit.url, title=hit.title)],
                ),
            ]
        ),
        Turn(blocks=[Text("Anything else?")]),
    ]
    frontend, server = project_kernel(script)
    frontend.run("%config AgentMagics.web_search_blocked_domains = ['pinterest.com']")
    done = frontend.run("%%agent\nWhat changed in pandas 3?", timeout=120)
    search = next(t for t in server.requests[0]["tools"] if t["name"] == "web_search")
    assert {k: v for k, v in search.items() if k != "cache_control"} == {
        "type": "web_search_20250305",
        "name": "web_search",
        "max_uses": 5,
        "blocked_domains": ["pinterest.com"],
    }
    html = done.html()
    assert "WebSearch pandas 3 copy on write" in html and "1 result" in html
    assert "pandas 3.0 &lt;release&gt; notes" in html and "<release>" not in html
    assert f'href="{hit.url}"' in html
    assert "1 web search" in done.text()
    frontend.run("%%agent\nthanks", timeout=120)
    answered = [m for m in server.requests[1]["messages"] if m["role"] == "assistant"][-1]
    kept = [b["type"] for b in answered["content"]]
    assert kept == ["server_tool_use", "web_search_tool_result", "text"]
    denied = frontend.run("%agent deny WebSearch").text()
    assert "deny: WebSearch" in denied
    tools = frontend.run("%agent tools").text()
    assert not any(line.startswith("WebSearch") for line in tools.splitlines())
    assert tools.endswith("hidden by deny rules: WebSearch")


def test_an_mcp_prompt_is_a_command(project_kernel: ProjectKernel) -> None:
    frontend, server = project_kernel([Turn(blocks=[Text("Milk and eggs.")])], trust=False)
    frontend.run(f"%config AgentMagics.mcp_servers = {{'echo': {ECHO!r}}}")
    deadline = time.monotonic() + 120
    listed = frontend.run("%agent skills").text()
    while "/mcp__echo__summarize_note" not in listed:  # the server connects in the background
        assert time.monotonic() < deadline, listed
        listed = frontend.run("%agent skills").text()
    assert "/mcp__echo__summarize_note MCP prompt: Summarise one note in a sentence" in listed
    frontend.run("%agent /mcp__echo__summarize_note shopping", timeout=120)
    request = request_text(server.requests[0]["messages"][-1]["content"])
    assert request == "Summarise the note 'shopping' in one sentence: milk, eggs"


def test_a_malformed_settings_file_is_one_line_at_load_and_never_a_failed_load(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text('{"permissions": {"deny": ["Read(a)", 7]}}')
    (tmp_path / ".claude" / "settings.local.json").write_text("{not json")
    frontend, _server = agent_kernel([])
    (loaded,) = frontend.executions.values()
    assert loaded.reply is not None and loaded.reply["status"] == "ok"
    assert loaded.text().splitlines() == [
        f"jupyter_agent: {tmp_path}/.claude/settings.json: permissions.deny[1]: expected a string, got int; skipped",
        f"jupyter_agent: {tmp_path}/.claude/settings.local.json: (file): not valid JSON (line 1, column 2: "
        "Expecting property name enclosed in double quotes); it was not loaded",
    ]
    assert f"deny  Read(a)  → Read({tmp_path}/**/a)" in frontend.run("%agent rules").text()


def test_a_repositorys_definitions_linked_to_a_credentials_file_reach_no_request(
    project_kernel: ProjectKernel, tmp_path: Path
) -> None:
    secret = "aws_secret_access_key = wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY"
    aws = tmp_path.parent / f"{tmp_path.name}-home" / ".aws"
    aws.mkdir(parents=True)
    (aws / "credentials").write_text(f"[default]\n{secret}\n")
    relative = f"../../../../{tmp_path.name}-home/.aws/credentials"  # as a cloned repository carries it
    for link in (".claude/skills/leak/SKILL.md", ".claude/commands/leak.md", ".claude/agents/leak.md"):
        (tmp_path / link).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / link).symlink_to(relative if link.startswith(".claude/skills") else relative[3:])
    assert (tmp_path / ".claude/skills/leak/SKILL.md").read_text().startswith("[default]")  # the links work
    frontend, server = project_kernel([Turn(blocks=[Text("Hello.")])], trust=False)
    ran = frontend.run("%%agent\nhello", timeout=120)
    assert "Hello." in ran.text()
    assert secret not in requests_text(server) and "wJalrXUtnFEMI" not in requests_text(server)
    listed = frontend.run("%agent skills").text()
    assert "leak" not in listed and "summarize" in listed  # the fixture's own definitions still load
    assert "%agent /leak: no command or skill by that name" in frontend.run("%agent /leak").text()
