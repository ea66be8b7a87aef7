"""Backticks tree-sitter leaves unparsed are substitutions bash runs: the analysis fails closed on them.

Found by an acceptance audit: with `--allow 'Bash(echo:*)'`, `echo ${x:=`touch PWNED`}` ran without a question
(tree-sitter keeps an expansion's backtick default as a plain word), and so did a nested substitution
`` echo `echo \\`touch PWNED\\`` `` (inside backticks, `` \\` `` opens another one). Bash is the oracle here too.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from dispatch_harness import Approvals, ToolHarness
from shell_oracle import check, run_in_bash

from jupyter_agent.builtin_tools.shell import bash_tool
from jupyter_agent.permissions.bubblewrap import check_sandbox
from jupyter_agent.permissions.commands import split_command
from jupyter_agent.tools.dispatch import Reject

HIDDEN = [
    pytest.param("echo ${x:=`touch PWNED`}", id="assign-default backtick"),
    pytest.param("echo ${x:-`touch PWNED`}", id="use-default backtick"),
    pytest.param("echo ${x=`touch PWNED`}", id="assign backtick without colon"),
    pytest.param('echo "${x:=`touch PWNED`}"', id="quoted expansion with a backtick default"),
    pytest.param("echo ${x:?`touch PWNED`}", id="error-message backtick"),
    pytest.param("echo ${x:-${y:-`touch PWNED`}}", id="nested expansion with a backtick default"),
    pytest.param("echo `echo \\`touch PWNED\\``", id="escaped backticks nest inside backticks"),
    pytest.param('echo `echo "\\`touch PWNED\\`"`', id="escaped backticks in a string inside backticks"),
]


def _run(command: str, root: Path) -> tuple[str, list[str]]:
    person = Approvals(Reject(message="no"))
    tools = ToolHarness(root, [bash_tool()], allow=["Bash(echo:*)"], approver=person)
    result = tools.call("Bash", command=command)
    return result.error_code or "OK", [request.reason for request in person.requests]


@pytest.mark.parametrize("command", HIDDEN)
def test_an_allow_rule_does_not_pass_a_backtick_the_parser_left(tmp_path: Path, command: str) -> None:
    code, asked = _run(command, tmp_path)
    assert asked, f"{command!r} ran without asking"
    assert code == "DENIED"
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize("command", HIDDEN)
def test_a_deny_rule_still_sees_the_hidden_command(command: str) -> None:
    found = split_command(command)
    assert not found.parsed
    assert any(s.text.startswith("touch PWNED") for s in found.subcommands)


@pytest.mark.parametrize(
    "command",
    [
        'git commit -m "use \\`foo\\`"',  # an escaped backtick outside backticks is a literal
        "echo \\`id\\`",
        "echo $(echo \\`id\\`)",  # `$(…)` reads its text afresh: the backslash quotes the backtick
        "echo `date`",
        "echo \\\\`date`",
    ],
)
def test_literal_and_parsed_backticks_stay_allowable(command: str) -> None:
    found = split_command(command)
    assert found.parsed and all(s.allowable for s in found.subcommands)


@pytest.mark.skipif(check_sandbox().bubblewrap is None, reason="bubblewrap cannot run here")
def test_bash_runs_nothing_the_analysis_did_not_see(tmp_path: Path) -> None:
    commands = [str(p.values[0]).replace("touch PWNED", "id") for p in HIDDEN]
    commands += ["echo `echo \\`id\\``", 'git commit -m "use \\`id\\`"', "echo $(echo \\`id\\`)"]
    runs = run_in_bash(commands, tmp_path)
    assert any(("id",) in run.argvs for run in runs), "bash ran none of the hidden commands: harness broken"
    misses = {command: check(command, ran) for command, ran in zip(commands, runs, strict=True)}
    assert not {command: found for command, found in misses.items() if found}
