"""Command rules fail closed: the red team's lines through the Dispatcher and real bash, and bash as the oracle.

The first tests replay the bypasses (ANSI-C quoting, a heredoc body holding a lone quote) with a real Bash
tool and a victim file that must survive. The differential test runs generated commands in bash inside the
sandbox and fails on any command bash executed that the analysis did not see, where an allow rule could pass.
The longer run is `benchmarks/shell_differential_bench.py`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from dispatch_harness import Approvals, ToolHarness
from shell_oracle import allow_could_pass, check, generate, run_in_bash

from jupyter_agent.builtin_tools.shell import bash_tool
from jupyter_agent.permissions.bubblewrap import check_sandbox
from jupyter_agent.permissions.commands import split_command
from jupyter_agent.permissions.policy import Allow, Ask, CallFacts, Deny
from jupyter_agent.tools import PermissionPolicy, Rule
from jupyter_agent.tools.dispatch import Reject

#: Fixed: CI runs the same commands every time; the benchmark script draws fresh seeds. Mutation testing runs
#: fewer per mutant (SHELL_ORACLE_CASES).
SEED = 20_231_124
CI_CASES = int(os.environ.get("SHELL_ORACLE_CASES", "1500"))


def _run(command: str, root: Path, *, allow: list[str], deny: list[str]) -> tuple[str, list[str]]:
    person = Approvals(Reject(message="no"))
    result = ToolHarness(root, [bash_tool()], allow=allow, deny=deny, approver=person).call(
        "Bash", command=command
    )
    return result.error_code or "OK", [request.reason for request in person.requests]


BYPASSES = [
    pytest.param("git status $'\\'' ; rm -f victim.txt # '", id="ANSI-C quote hides a second command"),
    pytest.param("git status <<EOF\n'\nEOF\nrm -f victim.txt", id="heredoc body with a lone quote"),
    pytest.param("git status $'\\x27' && r\\\nm -f victim.txt", id="line continuation inside the name"),
    pytest.param("git status \\  ; rm -f victim.txt", id="an escaped blank the parser drops"),
]


@pytest.mark.parametrize("command", BYPASSES)
def test_an_allow_rule_does_not_let_a_hidden_command_run(tmp_path: Path, command: str) -> None:
    (tmp_path / "victim.txt").write_text("keep me\n")
    code, asked = _run(command, tmp_path, allow=["Bash(git status*)"], deny=[])
    assert asked, f"{command!r} ran without asking"
    assert code == "DENIED"
    assert (tmp_path / "victim.txt").read_text() == "keep me\n"


@pytest.mark.parametrize("command", BYPASSES)
def test_a_deny_rule_sees_the_hidden_command(tmp_path: Path, command: str) -> None:
    (tmp_path / "victim.txt").write_text("keep me\n")
    code, asked = _run(command, tmp_path, allow=["Bash"], deny=["Bash(rm*)"])
    assert (code, asked) == ("DENIED", [])
    assert (tmp_path / "victim.txt").read_text() == "keep me\n"


def _decide(command: str, allow: list[str], deny: list[str]) -> object:
    policy = PermissionPolicy(allow=[Rule.parse(r) for r in allow], deny=[Rule.parse(r) for r in deny])
    return policy.decide(
        CallFacts(tool="Bash", subject=command, rule_kind="command", kind="execute", read_only=False)
    )


@pytest.mark.parametrize(
    ("command", "allow", "deny", "expected"),
    [
        pytest.param("nice -n 5 rm -rf x", ["Bash"], ["Bash(rm*)"], Deny, id="a wrapper is seen through"),
        pytest.param("bash -c 'ls; rm x'", ["Bash"], ["Bash(rm*)"], Deny, id="bash -c is parsed in turn"),
        pytest.param(
            "$CMD -rf x", ["Bash"], ["Bash(rm*)"], Deny, id="a command name only running tells could be rm"
        ),
        pytest.param(
            "rm $FLAGS", ["Bash"], ["Bash(rm -rf*)"], Deny, id="a hole could complete a deny prefix"
        ),
        pytest.param("nice --frobnicate rm x", ["Bash"], ["Bash(rm*)"], Deny, id="an unknown wrapper option"),
        pytest.param(
            "git status $(id)", ["Bash(git status*)", "Bash(id)"], [], Allow, id="a hole a prefix accepts"
        ),
        pytest.param("git diff $x", ["Bash(git diff)"], [], Ask, id="a hole an exact rule cannot accept"),
        pytest.param(
            "PATH=/tmp/evil git status", ["Bash(git status*)"], [], Ask, id="a variable set for the command"
        ),
        pytest.param(
            "PATH=/tmp/evil; git status", ["Bash(git status*)"], [], Ask, id="an upper-case variable set"
        ),
        pytest.param(
            "x='a[$(id)]'; (( x ))", ["Bash"], [], Allow, id="arithmetic is allowed by a bare Bash rule"
        ),
        pytest.param(
            "x='a[$(id)]'; (( x )); ls", ["Bash(ls*)"], [], Ask, id="arithmetic is never allowed by a pattern"
        ),
        pytest.param(
            "eval 'ls'", ["Bash(eval*)", "Bash(ls*)"], [], Ask, id="eval is never allowed by a pattern"
        ),
        pytest.param("ls *", ["Bash(ls*)"], [], Allow, id="a glob is a hole a prefix rule accepts"),
        pytest.param(
            "rm {-rf,x}", ["Bash"], ["Bash(rm -rf*)"], Deny, id="brace expansion could make the denied word"
        ),
        pytest.param(
            "'r'm -rf x", ["Bash"], ["Bash(rm -rf*)"], Deny, id="quotes removed as bash removes them"
        ),
    ],
)
def test_rules_read_what_bash_will_run(
    command: str, allow: list[str], deny: list[str], expected: type
) -> None:
    assert isinstance(_decide(command, allow, deny), expected)


def test_a_deny_rule_matches_any_word_of_a_line_that_does_not_parse() -> None:
    parsed = split_command('git status "unclosed ; rm -rf /')
    assert not parsed.parsed
    assert isinstance(_decide('git status "unclosed ; rm -rf /', ["Bash"], ["Bash(rm*)"]), Deny)


@pytest.mark.skipif(check_sandbox().bubblewrap is None, reason="bubblewrap cannot run here")
def test_every_command_bash_runs_is_one_the_analysis_saw(tmp_path: Path) -> None:
    commands = generate(SEED, CI_CASES)
    runs = run_in_bash(commands, tmp_path)
    misses = {command: check(command, ran) for command, ran in zip(commands, runs, strict=True)}
    misses = {command: found for command, found in misses.items() if found}
    allowable = sum(allow_could_pass(split_command(c)) for c in commands)
    assert sum(bool(r.argvs) for r in runs) > CI_CASES // 2, (
        "bash ran (almost) nothing: the harness is broken"
    )
    assert allowable > CI_CASES // 10, (
        "the analysis refused (almost) everything: the test would prove nothing"
    )
    assert not misses, misses
