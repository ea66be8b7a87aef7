"""One notion of "the user did not say" (`base/unset.py`): None, or blank text. The settings, a run's options and the
config made of both read it by the one rule, and no other module keeps a rule of its own."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import jupyter_agent
from jupyter_agent.agent.thinking import parse_thinking
from jupyter_agent.base.unset import first_set, said, unset_if_blank
from jupyter_agent.host.configure import agent_config
from jupyter_agent.host.options import RunOptions
from jupyter_agent.settings import AgentSettings

PACKAGE = Path(jupyter_agent.__file__).parent


def test_none_and_blank_text_say_nothing_and_zero_false_and_off_say_something() -> None:
    assert [said(v) for v in (None, "", "  \n")] == [False, False, False]
    assert [said(v) for v in (0, 0.0, False, "off", "x", ())] == [True] * 6
    assert (
        unset_if_blank("  opus ") == "opus" and unset_if_blank(" ") is None and unset_if_blank(None) is None
    )


def test_the_first_value_said_wins_else_the_default() -> None:
    assert first_set(None, "", "setting", default="default") == "setting"
    assert first_set(0, 5, default=7) == 0  # 0 turns is a value, not silence
    assert first_set(None, default=None) is None


def test_a_blank_setting_is_unset() -> None:
    settings = AgentSettings(model="   ", base_url="", api_key_env=" ")
    assert (settings.model, settings.base_url, settings.api_key_env) == (None, None, None)


def test_a_blank_run_option_leaves_the_setting_in_force() -> None:
    """`--model ''` says nothing: the setting's model runs (it was once taken as the model's name)."""
    settings = AgentSettings(model="claude-sonnet-4-5", max_turns=12)
    config = agent_config(settings, RunOptions(model="  "))
    assert config.model == "claude-sonnet-4-5" and config.max_turns == 12
    assert agent_config(settings, RunOptions(model="claude-opus-4-1", max_turns=3)).model == "claude-opus-4-1"
    assert agent_config(settings, RunOptions(max_turns=3)).max_turns == 3


@pytest.mark.parametrize("blank", ["", "   "])
def test_a_blank_thinking_value_is_the_models_default(blank: str) -> None:
    assert parse_thinking(blank) is None
    assert parse_thinking("off") == "off"


def _rule_like(name: str) -> bool:
    return bool(re.search(r"(^|_)(unset|not_set|first_set)(_|$)", name.lower()))


def test_no_module_but_base_unset_defines_a_rule_for_unset() -> None:
    """A second `_unset_if_blank` or `first_set` is how "unset" came to exist twice."""
    defined = sorted(
        f"{path.relative_to(PACKAGE).as_posix()}:{node.name}"
        for path in PACKAGE.rglob("*.py")
        if "labextension" not in path.relative_to(PACKAGE).parts and path.name != "unset.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and _rule_like(node.name)
    )
    assert defined == []
    assert _rule_like("_unset_if_blank") and _rule_like("first_set") and not _rule_like("RunSetup")
