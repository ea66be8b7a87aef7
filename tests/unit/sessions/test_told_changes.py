"""A record of what changed in what was told replays to the same state, and a hostile one breaks nothing."""

from __future__ import annotations

from typing import Any

import pytest

from jupyter_agent.sessions.told_changes import told_changes, with_told_changes

BEFORE: dict[str, Any] = {
    "facts": {"Permission mode": "default", "Kernel": "pid 1"},
    "tools": {"Read": {"name": "Read"}, "Bash": {"name": "Bash"}},
    "binding": None,
    "betas": [],
    "opening": [],
}


@pytest.mark.parametrize(
    "after",
    [
        {**BEFORE, "facts": {"Permission mode": "plan", "Kernel": "pid 1"}},
        {**BEFORE, "facts": {"Permission mode": "default"}},  # a fact no longer told
        {**BEFORE, "tools": {"Read": {"name": "Read"}, "WebSearch": {"name": "web_search"}}},
        {**BEFORE, "binding": "drop_block", "betas": ["b-1"]},
        {k: v for k, v in BEFORE.items() if k != "opening"},  # a key gone
        {**BEFORE, "new": {"x": 1}},  # a key new
    ],
    ids=["a fact changed", "a fact removed", "tools changed", "whole values", "a key gone", "a key new"],
)
def test_the_changes_applied_to_the_state_before_give_the_state_after(after: dict[str, Any]) -> None:
    changes = told_changes(BEFORE, after)
    assert changes
    replayed = with_told_changes(BEFORE, changes)
    assert {k: v for k, v in replayed.items() if v is not None} == {
        k: v for k, v in after.items() if v is not None
    }


def test_no_change_is_no_record() -> None:
    assert told_changes(BEFORE, dict(BEFORE)) == {}


@pytest.mark.parametrize(
    "record",
    [
        {"set": "x", "entries": ["x"]},
        {"entries": {"facts": "x", "tools": {"set": [1], "removed": "Read"}}},
        {"entries": {"facts": {"removed": [1, None, "Kernel"]}}},
    ],
)
def test_a_malformed_record_changes_only_what_it_validly_names(record: dict[str, Any]) -> None:
    replayed = with_told_changes(BEFORE, record)
    assert replayed["tools"] == BEFORE["tools"]
    assert set(replayed["facts"]) <= set(BEFORE["facts"])
