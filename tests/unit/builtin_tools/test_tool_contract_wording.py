"""What every built-in tool's definition says about units and paths is one statement, matching the code (issue
#42): a timeout is in milliseconds (Claude Code's unit: `timeout: 1800` meant as 30 minutes must not silently
stop training code after 1.8 s in one tool and 30 min in another), and a relative path is relative to the
working directory (`Sandbox.resolve_path` anchors at `cwd`), never "the notebook's directory"."""

from __future__ import annotations

import json

from jupyter_agent.builtin_tools.catalog import OPT_IN_TOOLS, builtin_tools
from jupyter_agent.builtin_tools.skill import SkillTool
from jupyter_agent.tools.core import AnyTool


def _tools() -> list[AnyTool]:
    made = [tool for row in OPT_IN_TOOLS for tool in row.make()]
    return [*builtin_tools(), *made, SkillTool([])]


def test_every_timeout_parameter_is_in_milliseconds_and_says_so() -> None:
    timeouts = {
        (tool.name, field): info.description or ""
        for tool in _tools()
        for field, info in tool.Input.model_fields.items()
        if "timeout" in field
    }
    assert {name for name, _ in timeouts} >= {"RunCode", "Bash", "VerifyNotebook"}
    assert {key: text for key, text in timeouts.items() if not text.startswith("Milliseconds")} == {}


def test_relative_paths_are_described_as_relative_to_the_working_directory() -> None:
    said = {tool.name: json.dumps(tool.to_param()) for tool in _tools()}
    assert [name for name, text in said.items() if "notebook's directory" in text] == []
    assert {name for name, text in said.items() if "relative to the working directory" in text} >= {
        "Read",
        "Write",
        "Edit",
        "MultiEdit",
        "NotebookRead",
        "NotebookEdit",
        "VerifyNotebook",
    }
