"""A run's scope: its own copy of the policy, changes kept as values, and a sub-agent's child scope that shares
the journal and passes what it records up to its run."""

from __future__ import annotations

from jupyter_agent.base.journal import RunJournal
from jupyter_agent.permissions.policy import PermissionPolicy, Rule
from jupyter_agent.tools.scope import ModeSwitched, NextInputUsed, RuleGranted, RunScope, own_policy


def test_a_runs_policy_is_a_copy_whose_rule_lists_are_its_own() -> None:
    session = PermissionPolicy(allow=[Rule("Read")], deny=[Rule("Bash(rm:*)")])
    scope = RunScope(policy=own_policy(session))
    scope.record(RuleGranted(Rule("Edit")))
    scope.record(ModeSwitched("acceptEdits"))
    assert scope.policy.allow == [Rule("Read"), Rule("Edit")] and scope.policy.mode == "acceptEdits"
    assert session.allow == [Rule("Read")] and session.mode == "default"  # the session's is untouched
    assert scope.changes == [RuleGranted(Rule("Edit")), ModeSwitched("acceptEdits")]


def test_a_child_shares_the_journal_and_its_grant_reaches_the_parent_run_and_the_host() -> None:
    journal = RunJournal(run_id=3)
    parent = RunScope(run_id=3, journal=journal, policy=own_policy(PermissionPolicy()), running_cell_id="c1")
    child = parent.child()
    assert (child.journal, child.running_cell_id, child.subagents) == (journal, "c1", None)
    child.record(RuleGranted(Rule("Bash(ls:*)")))
    assert Rule("Bash(ls:*)") in child.policy.allow and Rule("Bash(ls:*)") in parent.policy.allow
    assert parent.changes == [RuleGranted(Rule("Bash(ls:*)"))] and child.changes == []
    child.policy.scope = None
    child.policy.mode = "plan"  # what narrows the sub-agent stays with it
    assert parent.policy.mode == "default"


def test_the_one_next_input_of_a_run_counts_for_its_sub_agents_too() -> None:
    parent = RunScope()
    child = parent.child()
    assert not child.next_input_used
    child.record(NextInputUsed())
    assert parent.next_input_used and child.next_input_used
    assert not RunScope().next_input_used  # the next run has its own
