"""Magic option parsing: the `%%agent` line as a user types it → one `RunOptions`; mistakes are one-line
UsageErrors that name `%%agent` and the fix."""

from __future__ import annotations

from typing import Any

import pytest
from IPython.core.error import UsageError

from jupyter_agent.host.commands import help_text
from jupyter_agent.host.options import RUN_FLAGS, RunOptions, split_rules
from jupyter_agent.magics import AgentMagics, parse_run_line

PARSER: Any = getattr(AgentMagics.agent_magic, "parser")  # noqa: B009


def parse(line: str) -> RunOptions:
    options, words = parse_run_line(PARSER, line)
    assert words == []
    return options


def test_rules_split_on_commas_outside_parentheses() -> None:
    assert split_rules(["Read,Edit(src/**,docs/**)", "Bash(git status*)"]) == (
        "Read",
        "Edit(src/**,docs/**)",
        "Bash(git status*)",
    )


def test_a_malformed_rule_is_a_usage_error_that_says_how_to_write_one() -> None:
    with pytest.raises(UsageError, match=r"invalid permission rule 'Edit\(src'"):
        parse("--allow 'Edit(src'")


def test_the_allow_example_printed_by_help_parses_exactly_as_printed() -> None:
    example = next(line for line in help_text().splitlines() if "--allow" in line and "e.g." in line)
    printed = example.split("e.g. ", 1)[1]
    assert printed == '--allow "Edit(src/**),Bash(git status*)"'
    assert parse(printed).allow == ("Edit(src/**)", "Bash(git status*)")


def test_single_and_double_quoted_rules_lose_their_quotes() -> None:
    options = parse("--deny 'Bash(rm*)' --allow \"Read\" --allow 'Edit(a b/**)'")
    assert options.deny == ("Bash(rm*)",)
    assert options.allow == ("Read", "Edit(a b/**)")


def test_every_flag_lands_in_one_run_options_value() -> None:
    options = parse("--new --model m1 --mode plan --max-turns 3 --allow Read --deny Bash --quiet")
    assert options == RunOptions(
        new=True, model="m1", mode="plan", max_turns=3, allow=("Read",), deny=("Bash",), quiet=True
    )
    assert parse("") == RunOptions()


def test_a_misspelt_flag_names_the_magic_and_suggests_the_right_one() -> None:
    with pytest.raises(UsageError) as caught:
        parse("--mdoe plan")
    message = str(caught.value)
    assert "%%agent" in message
    assert "'--mdoe'" in message
    assert "did you mean --mode?" in message


def test_an_unknown_flag_with_nothing_close_lists_the_options() -> None:
    with pytest.raises(
        UsageError, match=r"%%agent: unknown option '--zzzzzz'; the options are --new, --model"
    ):
        parse("--zzzzzz")


def test_max_turns_below_one_is_refused() -> None:
    with pytest.raises(UsageError, match="--max-turns must be at least 1"):
        parse("--max-turns 0")
    with pytest.raises(UsageError, match="--max-turns must be at least 1"):
        parse("--max-turns -2")


def test_help_lists_every_flag_from_its_declaration() -> None:
    text = help_text()
    for flag in RUN_FLAGS:
        assert f"  {flag.flag}" in text
        assert flag.help in text
