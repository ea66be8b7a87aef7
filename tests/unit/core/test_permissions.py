"""Permission order (deny → ask → mode → allow) and pattern matching, table-driven."""

from __future__ import annotations

import pytest

from jupyter_agent.tools.permissions import Allow, Ask, CallFacts, Deny, PermissionPolicy, Rule, RuleKind


def facts(tool: str, subject: str | None = None, *, kind: str = "edit", read_only: bool = False,
          rule_kind: RuleKind = "path") -> CallFacts:  # fmt: skip
    return CallFacts(tool=tool, subject=subject, rule_kind=rule_kind, kind=kind, read_only=read_only)


READ = dict(kind="read", read_only=True)
EXEC = dict(kind="execute", rule_kind="command")

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
        message="Write is not available in plan mode: only read-only tools run. "
        "Finish the plan and present it; the user switches the mode to carry it out"
    )
