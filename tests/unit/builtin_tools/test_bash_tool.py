"""Bash through a real Dispatcher and real /bin/bash: exit codes, output caps, timeouts that leave nothing
running, credentials kept out of the environment, and permission rules on the command."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from dispatch_harness import Approvals, ToolHarness
from process_probe import alive_with

from jupyter_agent.builtin_tools.shell import bash_tool, scrubbed_environment
from jupyter_agent.tools import (
    Limits,
    Reject,
    Sandbox,
    ToolResult,
)


def run(
    args: dict[str, Any],
    tmp_path: Path,
    *,
    limits: Limits | None = None,
    keep_env: tuple[str, ...] = (),
) -> ToolResult:
    tools = ToolHarness(tmp_path, [bash_tool(keep_env=keep_env)], mode="bypassPermissions", limits=limits)
    return tools.call("Bash", args)


def test_output_and_exit_zero(tmp_path: Path) -> None:
    (tmp_path / "data.csv").write_text("a,b\n")
    result = run({"command": "ls && echo warning >&2", "description": "List files"}, tmp_path)
    assert not result.is_error
    assert result.content == "data.csv\n[stderr]\nwarning"
    assert result.summary == "exit 0 · 3 lines"


def test_a_non_zero_exit_is_an_error_with_the_code_and_the_output(tmp_path: Path) -> None:
    result = run({"command": "echo partial; echo 'no such table' >&2; exit 3"}, tmp_path)
    assert result.error_code == "EXECUTION_ERROR"
    assert (
        result.content == "EXECUTION_ERROR: the command exited with code 3\npartial\n[stderr]\nno such table"
    )


def test_a_timeout_kills_the_command_and_every_process_it_started(tmp_path: Path) -> None:
    marker = f"{os.getpid()}.4243"  # a sleep length no other process uses
    command = f"echo started; sleep {marker} & sleep {marker} & (sleep {marker}; echo never) & wait"
    result = run({"command": command, "timeout": 3000}, tmp_path)
    assert result.error_code == "TIMEOUT"
    assert result.content == (
        "TIMEOUT: the command did not finish in 3 s and was killed, with every process it started; "
        "output before that:\nstarted"
    )
    assert alive_with(marker) == []


def test_output_over_the_cap_keeps_head_and_tail(tmp_path: Path) -> None:
    result = run({"command": "seq 1 100000"}, tmp_path, limits=Limits(max_output_chars=2000))
    assert result.content.startswith("1\n2\n3\n")
    assert result.content.endswith("99999\n100000")
    assert "cut" in result.content
    assert len(result.content) < 4000


def test_a_secret_the_output_cap_cuts_through_is_masked_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-ant-api03-" + "Kq7Zr2Wm" * 12
    monkeypatch.setenv("ANTHROPIC_API_KEY", secret)
    (tmp_path / "key.txt").write_text(secret)
    # The head kept by the cap is 1200 characters: it ends inside the secret, which starts at 1190.
    command = "head -c 1190 /dev/zero | tr '\\0' a; cat key.txt; head -c 5000 /dev/zero | tr '\\0' b"
    result = run({"command": command}, tmp_path, limits=Limits(max_output_chars=2000))
    assert "cut" in result.content
    assert not any(secret[:n] in result.content for n in range(8, len(secret) + 1))


def test_credentials_are_not_in_the_commands_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-secret")
    monkeypatch.setenv("MY_SETTING", "visible")
    result = run({"command": "env"}, tmp_path)
    assert "sk-ant-secret" not in result.content and "ghp-secret" not in result.content
    assert "MY_SETTING=visible" in result.content


def test_a_credential_can_be_passed_through_on_purpose(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-needed")
    result = run(
        {"command": '[ "$GITHUB_TOKEN" = ghp-needed ] && echo "$GITHUB_TOKEN"'},
        tmp_path,
        keep_env=("GITHUB_TOKEN",),
    )
    assert result.content == "[redacted: GITHUB_TOKEN]"  # the command has it; the model still does not see it


def test_which_names_count_as_credentials() -> None:
    environ = {
        "ANTHROPIC_API_KEY": "1",
        "ANTHROPIC_BASE_URL": "2",
        "OPENAI_API_KEY": "3",
        "AWS_SECRET_ACCESS_KEY": "4",
        "JUPYTER_TOKEN": "5",
        "DB_PASSWORD": "6",
        "PATH": "/bin",
        "HOME": "/root",
        "TOKENIZERS_PARALLELISM": "false",
    }
    assert sorted(scrubbed_environment(environ)) == ["HOME", "PATH", "TOKENIZERS_PARALLELISM"]


def test_it_runs_in_the_sandbox_directory(tmp_path: Path) -> None:
    assert run({"command": "pwd"}, tmp_path).content == os.path.realpath(tmp_path)


def test_a_prefix_rule_allows_matching_commands_and_others_still_ask(tmp_path: Path) -> None:
    refuse = Approvals(Reject(message="not now"))
    sandbox = Sandbox.at(tmp_path, bash_sandbox="off")  # the rules alone, with or without bwrap here
    tools = ToolHarness(sandbox, [bash_tool()], allow=["Bash(echo hello*)"], approver=refuse)

    def call(command: str) -> ToolResult:
        return tools.call("Bash", command=command)

    assert call("echo hello world").content == "hello world"
    asked = refuse.requests
    assert asked == []
    assert call("echo hello; rm -rf x").content == "DENIED: Bash: not now"
    assert call("rm -rf build").error_code == "DENIED"
    # (the last line: without bwrap here, a line above the command says "unsandboxed")
    assert [(r.title, r.preview.kind, r.preview.text.splitlines()[-1]) for r in asked] == [
        ("Bash echo hello; rm -rf x", "code", "echo hello; rm -rf x"),
        ("Bash rm -rf build", "code", "rm -rf build"),
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(
            {"command": "ls", "timeout": 900_000},
            "- /timeout: expected less than or equal to 600000, got 900000. Fix: set `timeout` to less than or equal "
            "to 600000",
            id="a timeout over ten minutes is refused",
        ),
        pytest.param(
            {"cmd": "ls"},
            "- /command: expected a value (required). Fix: add `command`",
            id="the command is required",
        ),
    ],
)
def test_bad_arguments_name_the_fix(args: dict[str, Any], message: str, tmp_path: Path) -> None:
    result = run(args, tmp_path)
    assert result.error_code == "INVALID_ARGS"
    assert message in result.content.splitlines()


def test_bash_is_not_among_the_kernel_tools() -> None:
    from jupyter_agent.builtin_tools.kernel import kernel_tools

    assert "Bash" not in {tool.name for tool in kernel_tools()}
    tool = bash_tool()
    assert (tool.kind, tool.rule_field, tool.rule_kind, tool.read_only) == (
        "execute",
        "command",
        "command",
        False,
    )


BASH_DEFINITION = {
    "name": "Bash",
    "description": "Run a bash command in the working directory and return its output (stdout, "
    "then stderr) and exit status. Each call is a fresh shell: `cd` and variables do "
    "not carry over. The command and every process it starts are killed at the timeout "
    "(default 2 minutes, `timeout` in milliseconds, max 10 minutes); long output is "
    "cut in the middle. Credentials (ANTHROPIC_*, *_API_KEY, *_TOKEN, …) are not in "
    "its environment. The user is asked before each command unless a rule allows it. "
    "Prefer Read, Grep and Glob for reading and searching files. For a long-running command (a server, a "
    "watcher, a long job) set run_in_background: it returns at once with an id for BashOutput and KillShell.",
    "input_schema": {
        "additionalProperties": False,
        "properties": {
            "command": {
                "description": "The command, run with /bin/bash -c in the working directory.",
                "type": "string",
            },
            "timeout": {
                "anyOf": [{"maximum": 600000, "minimum": 1, "type": "integer"}, {"type": "null"}],
                "default": None,
                "description": "Milliseconds before the command and "
                "everything it started are killed; "
                "default 120000 (2 minutes), max "
                "600000 (10 minutes).",
            },
            "description": {
                "anyOf": [{"type": "string"}, {"type": "null"}],
                "default": None,
                "description": "What the command does in 5–10 "
                "words, shown to the user next to "
                'it (e.g. "List files in src").',
            },
            "run_in_background": {
                "default": False,
                "description": "Start it in the background and return at once with its id (bash_1, …); "
                "no timeout applies.",
                "type": "boolean",
            },
        },
        "required": ["command"],
        "type": "object",
    },
}


def test_the_bash_definition_the_model_sees_is_pinned() -> None:
    assert bash_tool().to_param() == BASH_DEFINITION
