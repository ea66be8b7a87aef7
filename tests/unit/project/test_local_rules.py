""" "Always allow in this project" writes the rule into the project's .claude/settings.local.json: merged into
what the file holds, made when missing, never through a symlink out of the project, and a file it cannot take
is left byte-identical; an untrusted project's rule is kept for the session too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyter_agent.base.errors import ToolError
from jupyter_agent.permissions.policy import Rule
from jupyter_agent.project.claude import ClaudeProject
from jupyter_agent.project.local_rules import LocalRuleError, add_local_allow, session_rules
from jupyter_agent.tools.scope import RuleGranted


def test_the_rule_is_merged_into_the_file_and_written_once(tmp_path: Path) -> None:
    local = tmp_path / ".claude" / "settings.local.json"
    local.parent.mkdir()
    local.write_text(
        json.dumps({"env": {"A": "1"}, "permissions": {"allow": ["Read"], "deny": ["Bash(rm*)"]}})
    )
    assert add_local_allow(tmp_path, "Bash(git push*)") == local
    add_local_allow(tmp_path, "Bash(git push*)")
    assert json.loads(local.read_text()) == {
        "env": {"A": "1"},
        "permissions": {"allow": ["Read", "Bash(git push*)"], "deny": ["Bash(rm*)"]},
    }


def test_a_missing_file_and_folder_are_made(tmp_path: Path) -> None:
    path = add_local_allow(tmp_path, "Write")
    assert json.loads(path.read_text()) == {"permissions": {"allow": ["Write"]}}


@pytest.mark.parametrize("text", ["{not json", '["a list"]', '{"permissions": {"allow": "Write"}}'])
def test_a_file_that_cannot_take_the_rule_is_left_untouched_and_named(tmp_path: Path, text: str) -> None:
    local = tmp_path / ".claude" / "settings.local.json"
    local.parent.mkdir()
    local.write_text(text)
    with pytest.raises(LocalRuleError, match=r"settings\.local\.json"):
        add_local_allow(tmp_path, "Write")
    assert local.read_text() == text


def test_a_symlink_out_of_the_project_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.local.json").symlink_to(outside)
    with pytest.raises(ToolError):
        add_local_allow(project, "Write")
    assert outside.read_text() == "{}"


def test_an_untrusted_projects_rule_is_written_and_kept_for_the_session_too(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    home = tmp_path / "home"
    home.mkdir()
    project = ClaudeProject.at(tmp_path, [tmp_path], home=home)
    said: list[str] = []
    changes = (RuleGranted(Rule("Write"), in_project=True), RuleGranted(Rule("Read")))
    assert session_rules(changes, project, said.append) == [
        "Write",
        "Read",
    ]  # untrusted: the session keeps it
    assert "apply once you %agent trust this project" in said[0]
    assert json.loads((tmp_path / ".claude" / "settings.local.json").read_text())["permissions"]["allow"] == [
        "Write"
    ]
    project.trust()
    said.clear()
    later = (RuleGranted(Rule("Edit"), in_project=True),)
    assert session_rules(later, project, said.append) == []  # trusted: later runs read it from the file
    assert said == [f"✅ Edit added to {tmp_path / '.claude' / 'settings.local.json'}"]
