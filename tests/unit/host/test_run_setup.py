"""A run's configuration is a value: `run_setup` maps the settings and the run's flags without touching a
session, and what a run adds to its policy never reaches the value (the next run starts from the settings)."""

from __future__ import annotations

from pathlib import Path

from jupyter_agent.agent.session import AgentSession
from jupyter_agent.base.sandbox import Sandbox
from jupyter_agent.host.configure import configure, run_setup
from jupyter_agent.host.options import RunOptions
from jupyter_agent.permissions.policy import Rule
from jupyter_agent.settings import AgentSettings
from jupyter_agent.tools.context import ToolContext
from jupyter_agent.tools.registry import ToolPool


def test_the_run_flags_go_over_the_settings_in_the_value(tmp_path: Path) -> None:
    settings = AgentSettings(model="settings-model", mode="acceptEdits", allow=["Read"], deny=["Bash"])
    options = RunOptions(model="run-model", mode="plan", allow=("Write",), max_cost=0.5)
    setup = run_setup(settings, options, sandbox=Sandbox.at(tmp_path))
    assert (setup.config.model, setup.config.budget_usd, setup.mode) == ("run-model", 0.5, "plan")
    assert (setup.allow, setup.deny) == ((Rule("Read"), Rule("Write")), (Rule("Bash"),))
    assert setup.sources["bash"] == ()  # an opt-in tool no setting and no allow rule asked for


def test_making_the_value_changes_no_session_and_applying_it_does(tmp_path: Path) -> None:
    session = AgentSession(pool=ToolPool(), ctx=ToolContext(sandbox=Sandbox.at(tmp_path)))
    settings = AgentSettings(mode="acceptEdits", allow=["Read"])
    setup = run_setup(settings, sandbox=session.ctx.sandbox)
    assert setup.mode == "acceptEdits"
    assert (session.policy.mode, session.policy.allow) == ("default", [])
    configure(session, settings)
    assert (session.policy.mode, session.policy.allow) == ("acceptEdits", [Rule("Read")])


def test_what_a_run_grants_stays_out_of_the_value(tmp_path: Path) -> None:
    setup = run_setup(AgentSettings(allow=["Read"]), sandbox=Sandbox.at(tmp_path))
    policy = setup.policy()
    policy.add_allow(Rule("Write"))
    policy.mode = "acceptEdits"
    assert setup.policy().allow == [Rule("Read")] and setup.policy().mode == "default"
