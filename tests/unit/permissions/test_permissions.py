"""Permission order (deny → ask → mode → protected paths → allow) and pattern matching, table-driven."""

from __future__ import annotations

import re
from typing import TypedDict

import pytest
from permission_facts import facts

from jupyter_agent.permissions.kinds import ToolKind
from jupyter_agent.permissions.policy import (
    DEFAULT_PROTECTED_PATHS,
    Allow,
    Ask,
    CallFacts,
    Deny,
    PermissionPolicy,
    Rule,
    RuleKind,
)
from jupyter_agent.permissions.rule_names import RuleNameError, check_rule_names


class ToolShape(TypedDict, total=False):
    """What a kind of tool declares about its calls, unpacked into `facts(...)`."""

    kind: ToolKind
    read_only: bool
    rule_kind: RuleKind


READ: ToolShape = {"kind": "read", "read_only": True}
EXEC: ToolShape = {"kind": "execute", "rule_kind": "command"}

CASES = [
    # (description, policy, call, expected decision type)
    ("read-only tools run in default mode", PermissionPolicy(), facts("Read", "a.py", **READ), Allow),
    ("edits ask in default mode", PermissionPolicy(), facts("Edit", "a.py"), Ask),
    ("edits run in acceptEdits mode", PermissionPolicy(mode="acceptEdits"), facts("Edit", "a.py"), Allow),
    (
        "execution still asks in acceptEdits mode",
        PermissionPolicy(mode="acceptEdits"),
        facts("Bash", "ls", **EXEC),
        Ask,
    ),
    (
        "deletes ask in acceptEdits mode",
        PermissionPolicy(mode="acceptEdits"),
        facts("NotebookEdit", "x", kind="delete"),
        Ask,
    ),
    ("plan mode refuses edits", PermissionPolicy(mode="plan"), facts("Edit", "a.py"), Deny),
    ("plan mode runs reads", PermissionPolicy(mode="plan"), facts("Grep", "x", **READ), Allow),
    (
        "bypass runs everything",
        PermissionPolicy(mode="bypassPermissions"),
        facts("Bash", "rm -rf x", **EXEC),
        Allow,
    ),
    (
        "a deny rule beats bypass",
        PermissionPolicy(mode="bypassPermissions", deny=[Rule("Bash")]),
        facts("Bash", "ls", **EXEC),
        Deny,
    ),
    (
        "a deny rule beats an allow rule",
        PermissionPolicy(allow=[Rule("Edit")], deny=[Rule("Edit", "*.lock")]),
        facts("Edit", "poetry.lock"),
        Deny,
    ),
    (
        "an ask rule beats bypass",
        PermissionPolicy(mode="bypassPermissions", ask=[Rule("Write")]),
        facts("Write", "a.py"),
        Ask,
    ),
    (
        "an ask rule applies to read-only tools too",
        PermissionPolicy(ask=[Rule("Read", "secrets/**")]),
        facts("Read", "secrets/k.txt", **READ),
        Ask,
    ),
    (
        "an allow rule lifts an ask",
        PermissionPolicy(allow=[Rule("Edit", "notebooks/**")]),
        facts("Edit", "notebooks/a/b.ipynb"),
        Allow,
    ),
    (
        "an allow rule for another path does not",
        PermissionPolicy(allow=[Rule("Edit", "notebooks/**")]),
        facts("Edit", "src/a.py"),
        Ask,
    ),
    (
        "an allow rule cannot lift plan mode's refusal",
        PermissionPolicy(mode="plan", allow=[Rule("Edit")]),
        facts("Edit", "a.py"),
        Deny,
    ),
    (
        "an allow rule cannot lift an ask rule",
        PermissionPolicy(allow=[Rule("Edit")], ask=[Rule("Edit")]),
        facts("Edit", "a.py"),
        Ask,
    ),
    (
        "a command prefix rule allows that command",
        PermissionPolicy(allow=[Rule("Bash", "git status*")]),
        facts("Bash", "git status --short", **EXEC),
        Allow,
    ),
    (
        "a prefix rule does not allow a chained command",
        PermissionPolicy(allow=[Rule("Bash", "git status*")]),
        facts("Bash", "git status; rm -rf /", **EXEC),
        Ask,
    ),
    (
        "a prefix rule does not allow a command substitution",
        PermissionPolicy(allow=[Rule("Bash", "echo *")]),
        facts("Bash", "echo $(cat ~/.ssh/id_rsa)", **EXEC),
        Ask,
    ),
    (
        "a prefix rule does not allow a pipe",
        PermissionPolicy(allow=[Rule("Bash", "ls*")]),
        facts("Bash", "ls | sh", **EXEC),
        Ask,
    ),
    (
        "a deny rule beats an ask rule",
        PermissionPolicy(ask=[Rule("Bash")], deny=[Rule("Bash", "rm *")]),
        facts("Bash", "rm -rf data", **EXEC),
        Deny,
    ),
    (
        "a prefix rule does not allow a second line",
        PermissionPolicy(allow=[Rule("Bash", "git status*")]),
        facts("Bash", "git status\nrm -rf ~", **EXEC),
        Ask,
    ),
    (
        "an exact rule does not match a longer command",
        PermissionPolicy(allow=[Rule("Bash", "git diff")]),
        facts("Bash", "git diff --output=~/.bashrc", **EXEC),
        Ask,
    ),
    (
        "an exact rule matches its command",
        PermissionPolicy(allow=[Rule("Bash", "git diff")]),
        facts("Bash", "git diff", **EXEC),
        Allow,
    ),
    (
        "an allow rule must match every subcommand",
        PermissionPolicy(allow=[Rule("Bash", "git status*"), Rule("Bash", "git diff*")]),
        facts("Bash", "git status && git diff --stat", **EXEC),
        Allow,
    ),
    (
        "a redirection keeps a command out of allow rules",
        PermissionPolicy(allow=[Rule("Bash", "echo *")]),
        facts("Bash", "echo x > ~/.bashrc", **EXEC),
        Ask,
    ),
    (
        "a colon-star rule is a prefix that ends at a word",
        PermissionPolicy(allow=[Rule("Bash", "npm test:*")]),
        facts("Bash", "npm test --watch", **EXEC),
        Allow,
    ),
    (
        "a colon-star rule does not match a longer word",
        PermissionPolicy(allow=[Rule("Bash", "npm test:*")]),
        facts("Bash", "npm testx", **EXEC),
        Ask,
    ),
    (
        "an escaped star is a literal star",
        PermissionPolicy(allow=[Rule("Bash", "rm \\*.pyc")]),
        facts("Bash", "rm -rf / x.pyc", **EXEC),
        Ask,
    ),
    (
        "a deny rule matches a subcommand whatever stands before it",
        PermissionPolicy(allow=[Rule("Bash")], deny=[Rule("Bash", "rm*")]),
        facts("Bash", "ls; FOO=1 rm -f x", **EXEC),
        Deny,
    ),
    (
        "a deny rule matches a command whose quoting cannot be followed",
        PermissionPolicy(allow=[Rule("Bash")], deny=[Rule("Bash", "rm*")]),
        facts("Bash", "echo 'open; rm -f x", **EXEC),
        Deny,
    ),
    (
        "an allow rule never matches a command whose quoting cannot be followed",
        PermissionPolicy(allow=[Rule("Bash", "echo *")]),
        facts("Bash", "echo 'open", **EXEC),
        Ask,
    ),
    (
        "an mcp rule does not match a longer tool name",
        PermissionPolicy(allow=[Rule("mcp__db__read")]),
        facts("mcp__db__read_then_drop", None, kind="other"),
        Ask,
    ),
    (
        "an mcp server rule covers that server's tools",
        PermissionPolicy(deny=[Rule("mcp__db")]),
        facts("mcp__db__drop", None, kind="other"),
        Deny,
    ),
    (
        "an mcp server rule does not cover a server with a longer name",
        PermissionPolicy(deny=[Rule("mcp__db")]),
        facts("mcp__dbx__drop", None, kind="other"),
        Ask,
    ),
    (
        "an Edit rule applies to every tool that writes paths",
        PermissionPolicy(allow=[Rule("Edit")], deny=[Rule("Edit", "secrets/**")]),
        facts("Write", "secrets/k.txt", access="write"),
        Deny,
    ),
    (
        "a Read rule applies to every tool that reads paths",
        PermissionPolicy(deny=[Rule("Read", "secrets/**")]),
        facts("Grep", "secrets", **READ, access="read"),
        Deny,
    ),
    (
        "a Read rule does not apply to writes",
        PermissionPolicy(mode="acceptEdits", deny=[Rule("Read", "secrets/**")]),
        facts("Write", "secrets/k.txt", access="write"),
        Allow,
    ),
    (
        "a deny rule matches the real path behind a symlink",
        PermissionPolicy(mode="acceptEdits", deny=[Rule("Edit", "ci/**")]),
        facts("Write", "src/shared/deploy.sh", access="write", real_subject="ci/deploy.sh"),
        Deny,
    ),
    (
        "a deny rule matches the path as written too",
        PermissionPolicy(mode="acceptEdits", deny=[Rule("Edit", "src/**")]),
        facts("Write", "src/shared/deploy.sh", access="write", real_subject="ci/deploy.sh"),
        Deny,
    ),
    (
        "an allow rule does not follow a symlink out of its pattern",
        PermissionPolicy(allow=[Rule("Edit", "src/**")]),
        facts("Write", "src/shared/deploy.sh", access="write", real_subject="ci/deploy.sh"),
        Ask,
    ),
    (
        "a protected path asks under an allow rule",
        PermissionPolicy(allow=[Rule("Edit")]),
        facts("Edit", ".git/config", access="write"),
        Ask,
    ),
    (
        "a protected path asks in acceptEdits mode",
        PermissionPolicy(mode="acceptEdits"),
        facts("Write", "sub/.env.local", access="write"),
        Ask,
    ),
    (
        "a protected path behind a symlink asks",
        PermissionPolicy(mode="acceptEdits"),
        facts("Write", "cfg/config", access="write", real_subject=".git/config"),
        Ask,
    ),
    (
        "a protected path runs in bypassPermissions mode",
        PermissionPolicy(mode="bypassPermissions"),
        facts("Write", ".bashrc", access="write"),
        Allow,
    ),
    (
        "plan mode still refuses a protected path",
        PermissionPolicy(mode="plan"),
        facts("Write", ".git/config", access="write"),
        Deny,
    ),
    (
        "reading a protected path does not ask",
        PermissionPolicy(),
        facts("Read", ".env", **READ, access="read"),
        Allow,
    ),
    (
        "a protected-paths setting adds to the list",
        PermissionPolicy(mode="acceptEdits", protected=(*DEFAULT_PROTECTED_PATHS, "deploy/**")),
        facts("Write", "deploy/prod.yaml", access="write"),
        Ask,
    ),
    (
        "a file whose name only ends like a protected one does not ask",
        PermissionPolicy(mode="acceptEdits"),
        facts("Write", "notes.bashrc", access="write"),
        Allow,
    ),
    (
        "a command that runs nothing is not allowed by a rule",
        PermissionPolicy(allow=[Rule("Bash", "ls*")]),
        facts("Bash", "FOO=1", **EXEC),
        Ask,
    ),
    (
        "a comment is not a command",
        PermissionPolicy(allow=[Rule("Bash", "ls*")]),
        facts("Bash", "ls # then; rm -rf x", **EXEC),
        Allow,
    ),
    (
        "a line continuation does not hide a command name from a deny rule",
        PermissionPolicy(allow=[Rule("Bash")], deny=[Rule("Bash", "rm*")]),
        facts("Bash", "r\\\nm -f x", **EXEC),
        Deny,
    ),
    (
        "mcp tool-name globs match",
        PermissionPolicy(allow=[Rule("mcp__srv__*")]),
        facts("mcp__srv__drop", None, kind="other"),
        Allow,
    ),
    (
        "mcp globs do not match other servers",
        PermissionPolicy(allow=[Rule("mcp__srv__*")]),
        facts("mcp__other__drop", None, kind="other"),
        Ask,
    ),
    (
        "a single star stays within one directory",
        PermissionPolicy(allow=[Rule("Edit", "src/*.py")]),
        facts("Edit", "src/pkg/a.py"),
        Ask,
    ),
    (
        "a double star crosses directories",
        PermissionPolicy(allow=[Rule("Edit", "src/**/*.py")]),
        facts("Edit", "src/pkg/a.py"),
        Allow,
    ),
    (
        "**/ also matches at the top",
        PermissionPolicy(allow=[Rule("Edit", "src/**/*.py")]),
        facts("Edit", "src/a.py"),
        Allow,
    ),
    (
        "a leading ./ in the subject is ignored",
        PermissionPolicy(allow=[Rule("Edit", "src/*")]),
        facts("Edit", "./src/a.py"),
        Allow,
    ),
    (
        "a pattern rule never matches a call without a subject",
        PermissionPolicy(allow=[Rule("Edit", "src/*")]),
        facts("Edit", None),
        Ask,
    ),
]


@pytest.mark.parametrize(("policy", "call", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_permission_decision(policy: PermissionPolicy, call: CallFacts, expected: type) -> None:
    assert isinstance(policy.decide(call), expected)


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("Read", Rule("Read")),
        ("Edit(notebooks/**)", Rule("Edit", "notebooks/**")),
        ("Bash(git status*)", Rule("Bash", "git status*")),
        ("  mcp__srv__*  ", Rule("mcp__srv__*")),
        ("Bash(echo (a))", Rule("Bash", "echo (a)")),
    ],
)
def test_rules_parse(text: str, rule: Rule) -> None:
    assert Rule.parse(text) == rule
    assert Rule.parse(str(rule)) == rule


def test_a_malformed_rule_says_how_to_write_one() -> None:
    with pytest.raises(ValueError, match=r"write Tool or Tool\(pattern\)"):
        Rule.parse("Edit(src")


def test_deny_messages_name_the_rule_and_plan_mode_explains_itself() -> None:
    denied = PermissionPolicy(deny=[Rule("Edit", "*.lock")]).decide(facts("Edit", "uv.lock"))
    assert denied == Deny(message="Edit is denied by the rule Edit(*.lock); do not retry it, tell the user")
    planned = PermissionPolicy(mode="plan").decide(facts("Write", "a.py"))
    assert planned == Deny(
        message="Write is not available in plan mode: only read-only tools run; RunCode, RunCell, Bash and every "
        "edit of a file or cell are refused. Investigate, then present the plan with ExitPlanMode: the user "
        "approves it (the mode switches and you carry the plan out at once) or asks you to keep planning. Without "
        "ExitPlanMode, give the plan as your answer: the user switches the mode to carry it out."
    )


KNOWN = ["Bash", "Edit", "Glob", "Grep", "NotebookEdit", "Read", "Write", "mcp__db__query", "mcp__db__read"]


@pytest.mark.parametrize(
    ("rule", "hint"),
    [
        pytest.param("bash", r"did you mean Bash\? \(tool names are case-sensitive\)", id="wrong case"),
        pytest.param("Bash(rm*)", r"", id="placeholder"),
        pytest.param(
            "Wrte(src/**)", r"did you mean Write\(src/\*\*\)\?", id="a typo suggests the right name"
        ),
        pytest.param("mcp__db__drop", r"", id="an mcp tool the server does not have"),
        pytest.param("mcp__dbx", r"", id="an mcp server that is not there"),
    ],
)
def test_a_rule_naming_no_known_tool_is_refused_with_the_likely_name(rule: str, hint: str) -> None:
    if rule == "Bash(rm*)":
        check_rule_names([rule], KNOWN)  # a known tool passes
        return
    with pytest.raises(RuleNameError, match=r"UNKNOWN_TOOL_IN_RULE: the rule .* names no known tool") as info:
        check_rule_names([rule], KNOWN)
    assert re.search(hint, str(info.value))


def test_rules_for_known_tools_servers_and_access_kinds_are_accepted() -> None:
    check_rule_names(
        [
            "Bash(git status*)",
            "mcp__db",
            "mcp__db__*",
            "mcp__db__read",
            "Edit(src/**)",
            "Read",
            "mcp__*",
            "*",
        ],
        KNOWN,
    )
    check_rule_names(["mcp__later__tool", "mcp__later"], ["Bash"], mcp_servers=["later"])


def test_case_only_checking_refuses_only_a_known_name_in_the_wrong_case() -> None:
    check_rule_names(["my_tool", "mcp__x"], KNOWN, case_only=True)
    with pytest.raises(RuleNameError, match="did you mean Write"):
        check_rule_names(["write"], KNOWN, case_only=True)


def test_a_wrong_case_rule_in_the_settings_is_refused_when_set() -> None:
    from jupyter_agent.settings import AgentSettings, SettingError

    with pytest.raises(SettingError, match="did you mean Bash") as info:
        AgentSettings(deny=["bash"])
    assert isinstance(info.value.__cause__, RuleNameError)
    assert AgentSettings(deny=["Bash", "my_later_tool"]).deny == ["Bash", "my_later_tool"]


@pytest.mark.parametrize(
    "path",
    [
        ".git",
        ".git/config",
        "sub/.git/hooks/pre-commit",
        ".env",
        ".env.local",
        ".ssh/authorized_keys",
        ".ipython/profile_default/startup/00.py",
        ".jupyter/jupyter_server_config.py",
        ".vscode/tasks.json",
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".bash_logout",
        ".profile",
        ".zshrc",
        ".zshenv",
        ".zprofile",
        ".zlogin",
        ".gitconfig",
        "ipython_config.py",
        "jupyter_server_config.py",
        "/home/u/.bashrc",
    ],
)
def test_every_default_protected_path_asks_before_a_write_even_in_accept_edits(path: str) -> None:
    decision = PermissionPolicy(mode="acceptEdits", allow=[Rule("Edit")]).decide(
        facts("Write", path, access="write")
    )
    assert isinstance(decision, Ask)
    assert decision.reason.startswith(f"{path} is a protected path (")
