"""Memory files: the user's own AGENTS.md is in the system prompt; a repository's AGENTS.md / CLAUDE.md — text other
people can edit — reach the model as tool results of the conversation's opening (Anthropic's advice on indirect
prompt injection), most general first, read once per conversation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_testkit import HarnessFactory, assert_valid_request, texts

from jupyter_agent.agent.memory import load_memory
from jupyter_agent.base.harness_texts import OPENING_CLOSE, OPENING_NOTE, SUBAGENT_OPENING_NOTE
from jupyter_agent.builtin_tools.files import file_tools
from jupyter_agent.testing import Text, ToolUse, Turn


def _system(body: dict[str, Any]) -> str:
    match body["system"]:
        case [{"text": str(text)}]:
            return text
        case other:
            raise AssertionError(f"expected one system block with text, got {other!r}")


def _opening_results(body: dict[str, Any]) -> dict[str, str]:
    """The opening's Read calls and their results: file path → text."""
    note, calls, results = body["messages"][:3]
    assert note["role"] == "user" and note["content"][0]["text"] == OPENING_NOTE
    assert calls["role"] == "assistant" and results["role"] == "user"
    paths = {b["id"]: b["input"]["file_path"] for b in calls["content"] if b["name"] == "Read"}
    return {
        paths[b["tool_use_id"]]: "".join(part["text"] for part in b["content"])
        for b in results["content"]
        if b["type"] == "tool_result" and b["tool_use_id"] in paths
    }


def test_a_repositorys_agents_md_reaches_the_model_as_a_read_result_not_in_the_system_prompt(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    (tmp_path / "AGENTS.md").write_text("Always use polars, never pandas.\n")
    h = harness([Turn(blocks=[Text("ok")])], tools=file_tools())
    h.run("load the data")
    request = h.server.requests[0]
    assert "polars" not in _system(request)
    assert _opening_results(request) == {str(tmp_path / "AGENTS.md"): "Always use polars, never pandas."}
    # the harness's note closes the opening, then the request comes in a user turn of its own
    assert request["messages"][3] == {
        "role": "assistant",
        "content": [{"type": "text", "text": OPENING_CLOSE}],
    }
    assert texts(request["messages"][4]) == ["load the data"]
    assert_valid_request(request)


def test_without_the_read_tool_the_files_go_as_text_marked_as_the_repositorys(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    (tmp_path / "AGENTS.md").write_text("Always use polars.")
    h = harness([Turn(blocks=[Text("ok")])])
    h.run("load the data")
    [message] = h.server.requests[0]["messages"]
    first, request = texts(message)
    assert request == "load the data"
    assert first.startswith(f"[Text from the repository ({tmp_path / 'AGENTS.md'}), read by the harness")
    assert first.endswith("\nAlways use polars.")
    assert "polars" not in _system(h.server.requests[0])


def test_the_users_own_memory_file_is_in_the_system_prompt(harness: HarnessFactory, tmp_path: Path) -> None:
    own = tmp_path / "home" / "AGENTS.md"
    own.parent.mkdir()
    own.write_text("I like terse answers.")
    h = harness([Turn(blocks=[Text("ok")])], session_options={"user_memory": own})
    h.run("hello")
    system = _system(h.server.requests[0])
    assert f"## {own}\nI like terse answers." in system
    assert "terse" not in json.dumps(h.server.requests[0]["messages"])


def test_memory_is_read_once_per_conversation_and_again_after_reset(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    memory = tmp_path / "CLAUDE.md"
    memory.write_text("Rule one.")
    h = harness(
        [Turn(blocks=[Text("a")]), Turn(blocks=[Text("b")]), Turn(blocks=[Text("c")])], tools=file_tools()
    )
    h.run("first")
    memory.write_text("Rule two.")
    h.run("second")
    first, second = h.server.requests
    assert _system(second) == _system(first) and second["tools"] == first["tools"]  # the prefix holds
    assert _opening_results(second) == {str(memory): "Rule one."}  # sent again exactly as it was
    h.session.reset()
    h.run("third")
    assert _opening_results(h.server.requests[2]) == {str(memory): "Rule two."}


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


def test_a_subagent_gets_the_same_files_in_its_own_opening(harness: HarnessFactory, tmp_path: Path) -> None:
    from jupyter_agent.builtin_tools.workflow import TaskTool

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
    subagent = h.server.requests[1]
    assert _system(subagent) != _system(h.server.requests[0])  # it is the sub-agent's own prompt
    assert "day-first" not in _system(subagent)
    note, calls, results = subagent["messages"][:3]
    assert note["content"][0]["text"] == SUBAGENT_OPENING_NOTE
    assert [b["input"] for b in calls["content"]] == [{"file_path": str(tmp_path / "AGENTS.md")}]
    assert results["content"][0]["content"][0]["text"] == "Dates are day-first."
    assert texts(subagent["messages"][4]) == ["Check the date format."]


def test_a_secret_in_a_memory_file_is_masked_before_it_reaches_the_model(
    harness: HarnessFactory, tmp_path: Path, monkeypatch: Any
) -> None:
    key = "ghp_Zx81Kq2Lm7Wn4Pv9Rt3Yb6Hd"
    monkeypatch.setenv("GITHUB_TOKEN", key)
    (tmp_path / "CLAUDE.md").write_text(f"Deploy with token {key}; its tail is {key[-10:]}.\n")
    h = harness([Turn(blocks=[Text("ok")])], tools=file_tools())
    h.run("deploy")
    request = h.server.requests[0]
    assert _opening_results(request) == {
        str(
            tmp_path / "CLAUDE.md"
        ): "Deploy with token [redacted: GITHUB_TOKEN]; its tail is [redacted: GITHUB_TOKEN]."
    }
    assert key[-10:] not in json.dumps(request)
