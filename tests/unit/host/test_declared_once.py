"""Facts declared once: the settings' defaults and choices are the config's, the help and the prompt read
the modes' tables."""

from __future__ import annotations

import pytest
from traitlets import Enum

from jupyter_agent.agent.config import PROVIDERS, AgentConfig
from jupyter_agent.agent.facts import SessionFacts
from jupyter_agent.agent.prompt import PromptFacts, system_prompt
from jupyter_agent.host.commands import help_text
from jupyter_agent.host.configure import agent_config
from jupyter_agent.permissions.modes import MODE_HELP, MODES, Mode, mode_line
from jupyter_agent.settings import AgentSettings


def test_untouched_settings_give_the_default_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_MODEL", raising=False)
    assert agent_config(AgentSettings()) == AgentConfig()


#: What a user may assign to clear a setting, for each setting that can be cleared, and the `AgentConfig`
#: field it maps to. Cleared, it is None on both sides: one notion of "not set".
CLEARED = (
    ("model", "", "model"),
    ("base_url", "  ", "base_url"),
    ("api_key_env", "", "api_key"),
    ("budget_usd", 0, "budget_usd"),
    ("budget_usd", -0.0, "budget_usd"),
    ("session_budget_usd", 0.0, "session_budget_usd"),
    ("thinking", "", "thinking"),
    ("context_compact_fraction", 0, "context_compact_fraction"),
)


@pytest.mark.parametrize(("setting", "cleared", "field"), CLEARED)
def test_a_cleared_setting_is_none_in_the_settings_and_in_the_config(
    setting: str, cleared: object, field: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_MODEL", raising=False)
    settings = AgentSettings()
    setattr(settings, setting, None)
    assert getattr(settings, setting) is None
    by_none = agent_config(settings)
    setattr(settings, setting, cleared)
    assert getattr(settings, setting) is None
    assert agent_config(settings) == by_none
    expected = AgentConfig().model if field == "model" else None
    assert getattr(by_none, field) == expected


def test_a_run_option_wins_over_a_setting_and_an_unset_option_leaves_it() -> None:
    from jupyter_agent.host.options import RunOptions

    settings = AgentSettings(model="from-settings", budget_usd=2.0, thinking="adaptive", max_turns=7)
    kept = agent_config(settings)
    assert (kept.model, kept.budget_usd, kept.thinking, kept.max_turns) == (
        "from-settings",
        2.0,
        "adaptive",
        7,
    )
    run = agent_config(settings, RunOptions(model="from-run", max_cost=0.5, think=4096, max_turns=3))
    assert (run.model, run.budget_usd, run.thinking, run.max_turns) == ("from-run", 0.5, 4096, 3)
    # "off" is a value now (the least thinking the model takes), not "unset": the model's default is None
    assert agent_config(settings, RunOptions(think="off")).thinking == "off"
    assert agent_config(settings, RunOptions(effort="low")).effort == "low"
    settings.effort = "max"
    assert agent_config(settings).effort == "max"
    assert agent_config(settings, RunOptions(effort="low")).effort == "low"


def test_a_negative_cap_is_refused_when_it_is_set() -> None:
    settings = AgentSettings()
    with pytest.raises(ValueError, match="budget_usd is a cap in US dollars: positive, or None"):
        settings.budget_usd = -1.0
    assert settings.budget_usd is None


def test_the_settings_offer_exactly_the_configs_providers_and_modes() -> None:
    traits = AgentSettings.class_traits()
    provider, mode = traits["provider"], traits["mode"]
    assert isinstance(provider, Enum) and isinstance(mode, Enum)
    assert tuple(provider.values or ()) == PROVIDERS
    assert tuple(mode.values or ()) == MODES


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_is_explained_to_the_person_and_to_the_model(mode: Mode) -> None:
    assert f"{mode}: {MODE_HELP[mode]}" in AgentSettings.class_traits()["mode"].help
    assert mode in help_text()
    # every mode, explained once per conversation, and the one in force in the context (the table's texts)
    assert f"- {mode_line(mode, exit_plan=None)}" in system_prompt(PromptFacts())
    facts = SessionFacts(cwd="/w", kernel="k", mode=mode, date="2026-11-28", tool_names=("Read",))
    assert facts.lines()["Permission mode"] == mode_line(mode, exit_plan=False)


def test_no_setting_writes_out_a_default_the_config_already_declares() -> None:
    """A trait whose default is the config's must name the config's constant, not repeat its value: a
    literal written twice drifts (0.85 was written in both places)."""
    import ast
    import dataclasses
    import inspect

    import jupyter_agent.settings as settings_module

    config_defaults = {f.name: f.default for f in dataclasses.fields(AgentConfig)}
    repeated: list[str] = []
    for node in ast.walk(ast.parse(inspect.getsource(settings_module))):
        if not isinstance(node, ast.Assign):
            continue
        trait = node.value  # `name = Float(0.85, help=…).tag(config=True)`: the call inside `.tag`
        while isinstance(trait, ast.Call) and isinstance(trait.func, ast.Attribute):
            trait = trait.func.value
        if not (isinstance(trait, ast.Call) and trait.args):
            continue
        (target,) = node.targets
        first = trait.args[0]
        if isinstance(target, ast.Name) and isinstance(first, ast.Constant) and target.id in config_defaults:
            default = config_defaults[target.id]
            if not isinstance(first.value, bool) and first.value == default and first.value is not None:
                repeated.append(f"{target.id} = {first.value!r}")
    assert repeated == [], "import the constant from jupyter_agent/agent/config.py instead"
