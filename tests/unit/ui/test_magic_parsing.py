"""Magic option parsing: rules split on top-level commas; mistakes are one-line UsageErrors."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

from jupyter_agent.magics import split_rules


def test_rules_split_on_commas_outside_parentheses() -> None:
    assert split_rules(["Read,Edit(src/**,docs/**)", "Bash(git status*)"]) == [
        "Read",
        "Edit(src/**,docs/**)",
        "Bash(git status*)",
    ]


def test_a_malformed_rule_is_a_usage_error_that_says_how_to_write_one() -> None:
    with pytest.raises(UsageError, match=r"invalid permission rule 'Edit\(src'"):
        split_rules(["Edit(src"])
