"""AGENTS.md / CLAUDE.md reach the system prompt with their paths, most general first, read once per session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_testkit import HarnessFactory

from jupyter_agent.agent.memory import load_memory
from jupyter_agent.testing import Text, ToolUse, Turn


def _system(body: dict[str, Any]) -> str:
    match body["system"]:
        case [{"text": str(text)}]:
            return text
        case other:
            raise AssertionError(f"expected one system block with text, got {other!r}")


def test_agents_md_reaches_the_system_prompt_with_its_path(harness: HarnessFactory, tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("Always use polars, never pandas.\n")
    h = harness([Turn(blocks=[Text("ok")])])
    h.run("load the data")
    system = _system(h.server.requests[0])
    assert f"## {tmp_path / 'AGENTS.md'}\nAlways use polars, never pandas." in system


def test_memory_is_read_once_per_session_and_again_after_reset(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    memory = tmp_path / "CLAUDE.md"
    memory.write_text("Rule one.")
    h = harness([Turn(blocks=[Text("a")]), Turn(blocks=[Text("b")]), Turn(blocks=[Text("c")])])
    h.run("first")
    memory.write_text("Rule two.")
    h.run("second")
    assert _system(h.server.requests[1]) == _system(h.server.requests[0])  # the cached prefix holds
    h.session.reset()
    h.run("third")
    assert "Rule two." in _system(h.server.requests[2]) and "Rule one." not in _system(h.server.requests[2])


def test_files_load_from_the_user_file_then_the_top_root_down_to_the_notebook(tmp_path: Path) -> None:
    top, sub = tmp_path / "project", tmp_path / "project" / "notebooks"
    sub.mkdir(parents=True)
    (tmp_path / "AGENTS.md").write_text("above the root: not read")
    (top / "AGENTS.md").write_text("project-wide")
    (sub / "CLAUDE.md").write_text("notebooks only")
    (sub / "AGENTS.md").write_text("notebooks agents")
    user = tmp_path / "home" / "AGENTS.md"
    user.parent.mkdir()
    user.write_text("my habits")
    loaded = load_memory(sub, [top], user_file=user)
    assert [(m.path, m.text) for m in loaded] == [
        (user, "my habits"),
        (top / "AGENTS.md", "project-wide"),
        (sub / "AGENTS.md", "notebooks agents"),
        (sub / "CLAUDE.md", "notebooks only"),
    ]


def test_a_memory_file_that_links_outside_the_roots_is_not_read(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    secret = tmp_path / "elsewhere.md"
    secret.write_text("outside text")
    (project / "AGENTS.md").symlink_to(secret)
    assert load_memory(project, [project], user_file=tmp_path / "none.md") == []


def test_a_git_work_tree_above_the_notebook_is_the_top(tmp_path: Path) -> None:
    repo, notebooks = tmp_path / "repo", tmp_path / "repo" / "analysis"
    notebooks.mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / "AGENTS.md").write_text("repo rules")
    loaded = load_memory(notebooks, [notebooks], user_file=tmp_path / "none.md")
    assert [m.text for m in loaded] == ["repo rules"]


def test_a_subagent_follows_the_same_memory(harness: HarnessFactory, tmp_path: Path) -> None:
    from jupyter_agent.tools.files import file_tools
    from jupyter_agent.tools.workflow import TaskTool

    (tmp_path / "AGENTS.md").write_text("Dates are day-first.")
    task = {"description": "Check dates", "prompt": "Check the date format."}
    h = harness(
        [
            Turn(blocks=[ToolUse(name="Task", input=task)]),
            Turn(blocks=[Text("Day-first.")]),
            Turn(blocks=[Text("Done.")]),
        ],
        tools=[*file_tools(), TaskTool()],
    )
    h.run("check the dates")
    subagent_system = _system(h.server.requests[1])
    assert subagent_system != _system(h.server.requests[0])  # it is the sub-agent's own prompt
    assert f"## {tmp_path / 'AGENTS.md'}\nDates are day-first." in subagent_system


def test_a_secret_in_a_memory_file_is_masked_in_the_system_prompt(
    harness: HarnessFactory, tmp_path: Path, monkeypatch: Any
) -> None:
    key = "ghp_Zx81Kq2Lm7Wn4Pv9Rt3Yb6Hd"
    monkeypatch.setenv("GITHUB_TOKEN", key)
    (tmp_path / "CLAUDE.md").write_text(f"Deploy with token {key}; its tail is {key[-10:]}.\n")
    h = harness([Turn(blocks=[Text("ok")])])
    h.run("deploy")
    system = _system(h.server.requests[0])
    assert "Deploy with token [redacted: GITHUB_TOKEN]; its tail is [redacted: GITHUB_TOKEN]." in system
    assert key[-10:] not in system
