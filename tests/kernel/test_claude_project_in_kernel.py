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

from jupyter_agent.base.harness_texts import OPENING_CLOSE, request_text
from jupyter_agent.testing import (
    Citation,
    ScriptedServer,
    SearchHit,
    ServerToolUse,
    Text,
    Thinking,
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
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
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
    assert events[0]["tool_input"]["file_path"] == str(tmp_path / "data.csv")  # absolute, as in Claude Code
    assert events[0]["tool_use_id"] == "toolu_csv"
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
    # each line its own stream message (they may arrive as one or several): the lines as a person reads them
    assert [line for line in loaded.text().splitlines() if line] == [
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


def test_a_budget_thinking_session_with_agents_md_a_skill_and_a_sub_agent_passes_the_strict_server(
    project_kernel: ProjectKernel, tmp_path: Path
) -> None:
    """Issue #42's opening, end to end: `%%agent --model claude-haiku-4-5 --think 8000` in a project with an
    AGENTS.md, a skill and a sub-agent definition found where Claude Code keeps them. The first request (the
    harness's opening), the skill, the sub-agent's own conversation and a second run are all taken by the strict
    server, which refuses a thinking-budget request whose last assistant turn before the tool results has no
    thinking block."""

    def script(body: dict[str, Any], index: int) -> Turn:
        think = [Thinking("Plan the next step.")] if body.get("thinking", {}).get("type") == "enabled" else []
        answered = {
            b.get("tool_use_id")
            for b in body["messages"][-1]["content"]
            if isinstance(b, dict) and b.get("type") == "tool_result"
        }
        if str(body["system"][0]["text"]).startswith("You are a sub-agent"):
            if answered:
                return Turn(blocks=[*think, Text("loader.py line 1: no bug found.")])
            return Turn(blocks=[*think, ToolUse(name="Read", input={"file_path": "loader.py"})])
        if "toolu_task" in answered:  # the skill last: it narrows the tools while it is active
            return Turn(
                blocks=[*think, ToolUse(name="Skill", input={"skill": "summarize"}, id="toolu_skill")]
            )
        if "toolu_skill" in answered or request_text(body["messages"][-1]["content"]) == "and now?":
            return Turn(blocks=[*think, Text("Dates are day-first; the loader has no bug.")])
        task = {"description": "Review", "prompt": "Review loader.py.", "subagent_type": "reviewer"}
        return Turn(blocks=[*think, ToolUse(name="Task", input=task, id="toolu_task")])

    frontend, server = project_kernel(script, files={"AGENTS.md": "Dates are day-first.\n"})
    first = frontend.run("%%agent --model claude-haiku-4-5 --think 8000\ncheck the loader", timeout=120)
    assert first.reply is not None and first.reply["status"] == "ok", first.text()
    second = frontend.run("%%agent --model claude-haiku-4-5 --think 8000\nand now?", timeout=120)
    assert second.reply is not None and second.reply["status"] == "ok", second.text()

    assert [r.refusal for r in server.recorded if r.refusal is not None] == []
    bodies = server.requests
    assert len(bodies) == 6  # opening, the sub-agent's two, after Task, after Skill, second run
    skill_result = next(
        b for b in bodies[-2]["messages"][-1]["content"] if b.get("tool_use_id") == "toolu_skill"
    )
    assert "is_error" not in skill_result
    assert all(b["thinking"] == {"type": "enabled", "budget_tokens": 8000} for b in bodies if not _sub(b))
    opening = bodies[0]["messages"]
    handed = [b["input"] for b in opening[1]["content"] if b.get("type") == "tool_use"]
    assert {
        "file_path": str(tmp_path / "AGENTS.md")
    } in handed  # the repository's file, as the harness's Read
    assert opening[3] == {"role": "assistant", "content": [{"type": "text", "text": OPENING_CLOSE}]}
    sub = next(b for b in bodies if _sub(b))
    sub_handed = [b["input"] for b in sub["messages"][1]["content"] if b.get("type") == "tool_use"]
    assert {"file_path": str(tmp_path / ".claude" / "agents" / "reviewer.md")} in sub_handed
    assert "Dates are day-first; the loader has no bug." in second.text()


def _sub(body: dict[str, Any]) -> bool:
    return str(body["system"][0]["text"]).startswith("You are a sub-agent")


def test_the_settings_env_reaches_hooks_and_bash_never_the_kernel_and_a_token_in_it_is_masked(
    project_kernel: ProjectKernel, tmp_path: Path
) -> None:
    """Issue #44: a settings file's `env` is set for the commands run for the project (a hook, Bash), as Claude Code
    sets it; the kernel's own os.environ stays as it was, and a credential-like value is masked where shown."""
    token = "tok-5d1c9e7a2b44f0"
    local = {
        "env": {"PROJECT_FLAG": "from-settings", "DEPLOY_TOKEN": token},
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [{"type": "command", "command": 'echo "$PROJECT_FLAG" > hook-saw.txt'}],
                }
            ]
        },
    }
    script = [
        Turn(
            blocks=[ToolUse(name="Bash", input={"command": 'echo "flag=$PROJECT_FLAG token=$DEPLOY_TOKEN"'})]
        ),
        Turn(blocks=[Text("done")]),
    ]
    frontend, server = project_kernel(script, files={".claude/settings.local.json": local})
    frontend.run("%config AgentMagics.enable_bash = True\n%config AgentMagics.bash_sandbox = 'off'")
    frontend.run("%%agent --mode bypassPermissions\nshow the flag", timeout=120)
    ran = result_text(tool_results(server.requests[1])[0])
    assert "flag=from-settings" in ran
    assert token not in ran and "token=[redacted: DEPLOY_TOKEN]" in ran
    assert (tmp_path / "hook-saw.txt").read_text().strip() == "from-settings"
    kernel = frontend.run("import os; print(os.environ.get('PROJECT_FLAG'), os.environ.get('DEPLOY_TOKEN'))")
    assert kernel.text().strip() == "None None"
    status = frontend.run("%agent status").text()
    assert "env:      DEPLOY_TOKEN, PROJECT_FLAG (for hooks, ! lines and Bash; values not shown)" in status, (
        status
    )
    assert "from-settings" not in status
    assert token not in requests_text(server)
    assert token not in json.dumps(frontend.iopub_log, default=str)


STYLE = (
    "---\nname: Terse Data\ndescription: Numbers first\nkeep-coding-instructions: {keep}\n---\n"
    "Answer in at most three bullet points, each starting with the number it reports.\n"
)


@pytest.mark.parametrize("keep", [False, True])
def test_an_output_style_chosen_in_settings_changes_the_answer_section_of_the_system_prompt(
    project_kernel: ProjectKernel, keep: bool
) -> None:
    """Issue #44, Claude Code's output styles: the chosen style's text goes into the system prompt in place of
    the answer section; without `keep-coding-instructions: true` the section on how to work is left out too."""
    files = {
        ".claude/output-styles/terse.md": STYLE.format(keep=str(keep).lower()),
        ".claude/settings.local.json": {"outputStyle": "Terse Data"},
    }
    frontend, server = project_kernel([Turn(blocks=[Text("- 3 rows")])], files=files)
    frontend.run("%%agent\nHow many rows?", timeout=120)
    system = json.dumps(server.requests[0]["system"])
    assert "# Output style: Terse Data\\nAnswer in at most three bullet points" in system
    assert "# Your answer" not in system
    assert ("# How to work in a notebook" in system) is keep


def test_an_untrusted_projects_output_style_is_not_used(project_kernel: ProjectKernel) -> None:
    files = {
        ".claude/output-styles/terse.md": STYLE.format(keep="false"),
        ".claude/settings.local.json": {"outputStyle": "Terse Data"},
    }
    frontend, server = project_kernel([Turn(blocks=[Text("ok")])], trust=False, files=files)
    frontend.run("%%agent\nHow many rows?", timeout=120)
    system = json.dumps(server.requests[0]["system"])
    assert "Terse Data" not in system and "# Your answer" in system


def write_plugin(root: Path, files: dict[str, str | dict[str, Any]]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content))


def test_a_marketplace_in_the_shape_of_claude_codes_plugins_loads_as_claude_code_lists_it(
    project_kernel: ProjectKernel, tmp_path: Path
) -> None:
    """Issue #44, Done-when: a marketplace laid out as anthropics/claude-code's (`.claude-plugin/marketplace.json`
    at the root, `plugins/<name>/` each with `.claude-plugin/plugin.json`, `commands/`, `agents/`, `skills/<name>/
    SKILL.md`, `hooks/hooks.json`, `.mcp.json`); the texts are written here, that repository is all rights reserved.
    Its plugins load with Claude Code's names and counts, and a plugin's MCP server starts."""
    market = {
        "name": "sample-market",
        "plugins": [
            {"name": "commit-tools", "source": "./plugins/commit-tools"},
            {"name": "plugin-kit", "source": "./plugins/plugin-kit"},
        ],
    }
    write_plugin(tmp_path, {".claude-plugin/marketplace.json": market})
    write_plugin(
        tmp_path / "plugins" / "commit-tools",
        {
            ".claude-plugin/plugin.json": {"name": "commit-tools", "version": "1.0.0"},
            "commands/commit.md": "---\ndescription: Make a commit\nallowed-tools: Bash(git add:*)\n---\nCommit.\n",
            "commands/commit-push-pr.md": "---\ndescription: Commit, push, open a PR\n---\nDo all three.\n",
            "hooks/hooks.json": {
                "hooks": {
                    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]
                }
            },
        },
    )
    write_plugin(
        tmp_path / "plugins" / "plugin-kit",
        {
            ".claude-plugin/plugin.json": {"name": "plugin-kit"},
            "skills/hook-development/SKILL.md": "---\nname: Hook Development\ndescription: Write hooks\n---\nB.\n",
            "skills/mcp-integration/SKILL.md": "---\nname: mcp-integration\ndescription: Add MCP servers\n---\nB.\n",
            "agents/plugin-validator.md": (
                "---\nname: plugin-validator\ndescription: Use this agent when a plugin is done: "
                '<example>user: check it</example>\ntools: ["Read", "Grep"]\n---\nValidate.\n'
            ),
            ".mcp.json": {
                "echo": {"command": sys.executable, "args": ["${CLAUDE_PLUGIN_ROOT}/../../echo.py"]}
            },
        },
    )
    (tmp_path / "echo.py").write_text((FIXTURE.parent / "mcp_echo_server.py").read_text())
    enabled = {"enabledPlugins": {"commit-tools@sample-market": True, "plugin-kit@sample-market": True}}
    frontend, _ = project_kernel([Turn(blocks=[Text("ok")])], files={".claude/settings.local.json": enabled})
    listed = frontend.run("%agent plugins").text()
    assert "  commands: commit-tools:commit, commit-tools:commit-push-pr" in listed, listed
    assert "  hooks: PreToolUse" in listed
    assert "  skills: plugin-kit:hook-development, plugin-kit:mcp-integration" in listed
    assert "  sub-agents: plugin-kit:plugin-validator" in listed
    assert "  MCP servers: plugin:plugin-kit:echo" in listed
    assert "skipped" not in listed
    deadline = time.monotonic() + 120
    while "plugin:plugin-kit:echo  connected   5 tools" not in (text := frontend.run("%agent mcp").text()):
        assert time.monotonic() < deadline, text
        time.sleep(0.5)
