"""Facts declared once: the settings' defaults and choices are the config's, the help and the prompt read
the modes' tables."""

from __future__ import annotations

import pytest
from traitlets import Enum

from jupyter_agent.agent.config import PROVIDERS, AgentConfig
from jupyter_agent.agent.prompt import PromptFacts, system_prompt
from jupyter_agent.host.commands import help_text
from jupyter_agent.host.configure import agent_config
from jupyter_agent.settings import AgentSettings
from jupyter_agent.tools.modes import MODE_HELP, MODE_PROMPT, MODES, Mode


def test_untouched_settings_give_the_default_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_MODEL", raising=False)
    assert agent_config(AgentSettings()) == AgentConfig()


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
    facts = PromptFacts(cwd="/w", kernel="k", mode=mode, tool_names=("Read",))
    assert MODE_PROMPT[mode] in system_prompt(facts)


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
            if not isinstance(first.value, bool) and first.value == default and first.value not in ("", 0):
                repeated.append(f"{target.id} = {first.value!r}")
    assert repeated == [], "import the constant from jupyter_agent/agent/config.py instead"
