"""What a decision says, what "Always allow" stores, which tools a rule names, and the rule-name checks."""

from __future__ import annotations

import pytest
from permission_facts import facts

from jupyter_agent.permissions.policy import (
    Allow,
    Ask,
    CallFacts,
    Decision,
    PermissionPolicy,
    Rule,
    parse_rules,
)
from jupyter_agent.permissions.rule_glob import escape_pattern
from jupyter_agent.permissions.rule_names import RuleNameError, check_rule_names
from jupyter_agent.tools import Sandbox, ToolContext, tool
from jupyter_agent.tools.call_facts import call_facts


def command(text: str) -> CallFacts:
    return facts("Bash", text, kind="execute", rule_kind="command")


@pytest.mark.parametrize(
    ("policy", "call", "decision"),
    [
        pytest.param(PermissionPolicy(), facts("Read", "a.py", kind="read", read_only=True), Allow(reason="read-only"), id="read-only"),
        pytest.param(PermissionPolicy(mode="bypassPermissions"), command("make"), Allow(reason="bypassPermissions mode"), id="bypass"),
        pytest.param(PermissionPolicy(mode="acceptEdits"), facts("Edit", "a.py"), Allow(reason="acceptEdits mode"), id="acceptEdits"),
        pytest.param(PermissionPolicy(), facts("Edit", "a.py"), Ask(reason="default mode asks before edit tools", by="mode"), id="default edit"),
        pytest.param(PermissionPolicy(mode="acceptEdits"), command("make"), Ask(reason="acceptEdits mode asks before execute tools", by="mode"), id="acceptEdits execute"),
        pytest.param(PermissionPolicy(allow=[Rule("Bash", "git *")]), command("git status"), Allow(reason="allowed by the rule Bash(git *)"), id="one rule"),
        pytest.param(
            PermissionPolicy(allow=[Rule("Bash", "git *"), Rule("Bash", "ls*")]),
            command("git status && ls && git diff"),
            Allow(reason="allowed by the rule Bash(git *), Bash(ls*)"),
            id="rules that share a command, each named once",
        ),
    ],
)  # fmt: skip
def test_every_decision_says_why(policy: PermissionPolicy, call: CallFacts, decision: Decision) -> None:
    assert policy.decide(call) == decision


def test_the_approval_reason_names_the_mode_and_what_the_tool_does() -> None:
    @tool(kind="delete")
    def drop(table: str) -> str:
        """Drop a table (never called here)."""
        return table

    params = drop.Input.model_validate({"table": "users"})
    ctx = ToolContext(sandbox=Sandbox.at("/tmp"))
    decided = PermissionPolicy(mode="acceptEdits").decide(call_facts(drop, params, ctx, None))
    assert decided == Ask(reason="acceptEdits mode asks before delete tools", by="mode")


# -- "Always allow" stores the command exactly: wildcard characters in it are literal -------------------

ALWAYS_ALLOWED = [
    ("rm *.pyc", ["rm x.pyc", "rm -rf / x.pyc"]),
    ("ls data?.csv", ["ls data1.csv"]),
    ("echo \\*", ["echo \\x", "echo \\$(rm -rf ~)"]),
    ("grep -c '\\?' log.txt", ["grep -c 'x' log.txt"]),
    ("git add *.py && git commit -m wip", ["git add x.py && git commit -m wip"]),
]


@pytest.mark.parametrize(("approved", "others"), ALWAYS_ALLOWED)
def test_an_always_allowed_command_allows_that_command_and_nothing_its_wildcards_would(
    approved: str, others: list[str]
) -> None:
    policy = PermissionPolicy(allow=[Rule("Bash", escape_pattern(approved))])
    assert isinstance(policy.decide(command(approved)), Allow)
    for other in others:
        assert isinstance(policy.decide(command(other)), Ask), other


@pytest.mark.parametrize("pattern", ["*", "**"])
def test_a_match_everything_pattern_allows_redirections_like_the_bare_tool_name(pattern: str) -> None:
    policy = PermissionPolicy(allow=[Rule("Bash", pattern)])
    assert isinstance(policy.decide(command("echo x > out.txt")), Allow)


# -- which tools a rule names ----------------------------------------------------------------------------


def test_a_server_rule_with_a_one_letter_name_covers_that_servers_tools() -> None:
    policy = PermissionPolicy(mode="bypassPermissions", deny=[Rule("mcp__s")])
    assert not isinstance(policy.decide(facts("mcp__s__query", None, kind="other", rule_kind="text")), Allow)
    assert isinstance(policy.decide(facts("mcp__sx__query", None, kind="other", rule_kind="text")), Allow)


def test_a_rule_for_one_mcp_tool_does_not_cover_a_tool_whose_name_extends_it() -> None:
    policy = PermissionPolicy(mode="bypassPermissions", deny=[Rule("mcp__db__read")])
    assert not isinstance(policy.decide(facts("mcp__db__read", None, kind="other", rule_kind="text")), Allow)
    assert isinstance(policy.decide(facts("mcp__db__read__all", None, kind="other", rule_kind="text")), Allow)


def test_an_edit_allow_rule_lifts_the_ask_of_every_tool_that_writes_paths() -> None:
    policy = PermissionPolicy(allow=[Rule("Edit", "src/**")])
    assert policy.decide(facts("Write", "src/a.py", access="write")) == Allow(
        reason="allowed by the rule Edit(src/**)"
    )
    assert isinstance(policy.decide(facts("Write", "docs/a.md", access="write")), Ask)


def test_a_protected_path_as_written_asks_even_when_it_resolves_to_an_ordinary_file() -> None:
    decision = PermissionPolicy(mode="acceptEdits").decide(
        facts("Write", ".git/hooks/pre-commit", access="write", real_subject="scripts/hook.sh")
    )
    assert isinstance(decision, Ask)


@pytest.mark.parametrize(
    ("subject", "denied"),
    [("https://evil.example/x", True), ("https://docs.python.org/3/", False)],
)
def test_a_rule_on_a_plain_text_subject_matches_the_whole_subject(subject: str, denied: bool) -> None:
    policy = PermissionPolicy(mode="bypassPermissions", deny=[Rule("WebFetch", "https://evil.example/*")])
    decision = policy.decide(facts("WebFetch", subject, kind="read", read_only=True, rule_kind="text"))
    assert isinstance(decision, Allow) is not denied


# -- what a deny rule hides from Grep and Glob -----------------------------------------------------------


def test_a_read_deny_rule_hides_files_matching_it_as_shown_or_as_resolved() -> None:
    policy = PermissionPolicy(deny=[Rule("Read", "secrets/*.txt")])
    assert policy.hides("Grep", "secrets/k.txt", "secrets/k.txt")
    assert policy.hides("Grep", "link/k.txt", "secrets/k.txt")  # through a symlink
    assert not policy.hides(
        "Grep", "secrets/deeper/k.txt", "secrets/deeper/k.txt"
    )  # `*` stays in one directory
    assert not policy.hides("Grep", "public/k.txt", "public/k.txt")


# -- rule lists and their names --------------------------------------------------------------------------


def test_rules_from_settings_parse_in_order() -> None:
    assert parse_rules(["Read", "Bash(git status*)", "mcp__db"]) == [
        Rule("Read"),
        Rule("Bash", "git status*"),
        Rule("mcp__db"),
    ]


KNOWN = ["Bash", "Edit", "Read"]


def test_every_rule_in_a_list_is_checked_not_only_up_to_the_first_good_one() -> None:
    with pytest.raises(RuleNameError, match="the rule Bsah names no known tool"):
        check_rule_names(["Read", "Edit(src/**)", "Bsah"], KNOWN)


def test_parsed_rules_are_checked_like_rule_texts() -> None:
    check_rule_names([Rule("Bash", "ls*"), Rule("Read")], KNOWN)
    with pytest.raises(RuleNameError, match="did you mean Edit\\(src/\\*\\*\\)"):
        check_rule_names([Rule("Eidt", "src/**")], KNOWN)


def test_a_rule_naming_nothing_like_a_known_tool_lists_the_known_tools() -> None:
    with pytest.raises(RuleNameError) as info:
        check_rule_names(["Zzyzx"], KNOWN)
    assert str(info.value) == (
        "UNKNOWN_TOOL_IN_RULE: the rule Zzyzx names no known tool "
        "Known tools: Bash, Edit, Read; mcp__<server> names all of a server's tools"
    )


def test_with_no_known_tools_the_message_says_none() -> None:
    with pytest.raises(RuleNameError) as info:
        check_rule_names(["Zzyzx"], [])
    assert str(info.value) == (
        "UNKNOWN_TOOL_IN_RULE: the rule Zzyzx names no known tool "
        "Known tools: none; mcp__<server> names all of a server's tools"
    )


def test_a_configured_server_that_is_connected_has_its_tool_names_checked() -> None:
    check_rule_names(["mcp__db__nope"], ["Read"], mcp_servers=["db"])  # not connected yet: accepted
    with pytest.raises(RuleNameError, match="the rule mcp__db__nope names no known tool"):
        check_rule_names(["mcp__db__nope"], ["Read", "mcp__db__read"], mcp_servers=["db"])
