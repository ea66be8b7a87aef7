"""`dontAsk` (issue #44) means what it means in Claude Code: what is not pre-approved by an allow rule is refused,
and nobody is ever asked — not by the mode, an ask rule, a protected path or a hook."""

from __future__ import annotations

from pathlib import Path

from dispatch_harness import Approvals, file_harness

from jupyter_agent.permissions.modes import MODES
from jupyter_agent.permissions.policy import Allow, Ask, CallFacts, Deny, PermissionPolicy, parse_rules
from jupyter_agent.project.settings_file import Anchors, read_settings_file


def edit(subject: str = "a.py") -> CallFacts:
    return CallFacts(
        tool="Edit", subject=subject, rule_kind="path", kind="edit", read_only=False, access="write"
    )


def test_what_would_ask_is_refused_and_what_a_rule_allows_runs() -> None:
    policy = PermissionPolicy(
        mode="dontAsk", allow=parse_rules(["Edit(src/**)"]), ask=parse_rules(["Edit(docs/**)"])
    )
    refused = policy.decide(edit("a.py"))
    assert isinstance(refused, Deny)
    assert refused.message.startswith(
        "refused in dontAsk mode, which never asks: dontAsk mode asks before edit"
    )
    assert isinstance(policy.decide(edit("src/a.py")), Allow)
    assert isinstance(policy.decide(edit("docs/a.md")), Deny)  # an ask rule cannot ask either
    assert isinstance(policy.decide(edit(".git/config")), Deny)  # nor a protected path
    read = CallFacts(
        tool="Read", subject="a.py", rule_kind="path", kind="read", read_only=True, access="read"
    )
    assert isinstance(policy.decide(read), Allow)
    assert isinstance(PermissionPolicy(mode="default").decide(edit()), Ask)  # where default mode would ask


def test_no_approval_is_ever_requested_and_the_file_is_untouched(tmp_path: Path) -> None:
    target = tmp_path / "a.py"
    target.write_text("x = 1\n")
    approvals = Approvals()
    harness = file_harness(tmp_path, mode="dontAsk", approver=approvals)
    harness.read(str(target))
    result = harness.call("Edit", file_path=str(target), old_string="x = 1", new_string="x = 2")
    assert result.error_code == "DENIED" and "dontAsk" in result.content
    assert approvals.requests == []
    assert target.read_text() == "x = 1\n"
    allowed = file_harness(tmp_path, mode="dontAsk", approver=approvals, allow=["Edit"])
    allowed.read(str(target))
    allowed.ok("Edit", file_path=str(target), old_string="x = 1", new_string="x = 2")
    assert approvals.requests == [] and target.read_text() == "x = 2\n"


def test_a_settings_file_may_choose_it(tmp_path: Path) -> None:
    assert "dontAsk" in MODES
    path = tmp_path / "settings.json"
    path.write_text('{"permissions": {"defaultMode": "dontAsk"}}')
    read = read_settings_file(path, "user", Anchors(base=tmp_path, project_dir=tmp_path, home=tmp_path))
    assert read is not None and read.default_mode == "dontAsk" and read.warnings == ()
