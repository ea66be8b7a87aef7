"""What a person is shown when asked: a terminal question with control characters escaped and secrets
masked; a headless refusal that names a setting that would really allow the call."""

from __future__ import annotations

from pathlib import Path

import pytest
from dispatch_harness import ToolHarness

from jupyter_agent.builtin_tools.shell import bash_tool
from jupyter_agent.tools import (
    Approval,
    ApprovalRequest,
    Approve,
    PermissionPolicy,
    Sandbox,
)
from jupyter_agent.ui.approval import ask_on_stdin, headless_refusal


def asked(command: str, tmp_path: Path, policy: PermissionPolicy | None = None) -> ApprovalRequest:
    """The real ApprovalRequest the Dispatcher builds for a Bash command (the approver records it and says no)."""
    seen: list[ApprovalRequest] = []

    async def record(request: ApprovalRequest) -> Approval:
        seen.append(request)
        return headless_refusal(request)

    # The rules' and the mode's question alone (Bash's own question without its sandbox: test_bash_sandbox.py).
    sandbox = Sandbox.at(tmp_path, bash_sandbox="off")
    tools = ToolHarness(sandbox, sources={"bash": [bash_tool()]}, policy=policy, approver=record)
    tools.call("Bash", command=command)
    return seen[0]


def test_the_terminal_question_shows_control_characters_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The ANSI sequence and carriage return would hide `touch pwned` behind "git status" on a real terminal.
    request = asked("touch pwned\x1b[2K\r\x1b[1Agit status\b\u202e", tmp_path)
    monkeypatch.setattr("builtins.input", lambda _prompt: "y")
    assert ask_on_stdin(request) == Approve()
    shown = capsys.readouterr().out
    assert "\x1b" not in shown and "\r" not in shown and "\b" not in shown and "\u202e" not in shown
    assert r"touch pwned\x1b[2K\r\x1b[1Agit status\x08\u202e" in shown


def test_the_terminal_question_masks_secrets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DEPLOY_TOKEN", "dpl-0123456789abcdef")
    request = asked("curl -H 'auth: dpl-0123456789abcdef' https://example.com", tmp_path)
    monkeypatch.setattr("builtins.input", lambda _prompt: "n")
    ask_on_stdin(request)
    shown = capsys.readouterr().out
    assert "dpl-0123456789abcdef" not in shown and "[redacted: DEPLOY_TOKEN]" in shown


def test_a_headless_bash_refusal_does_not_suggest_accept_edits(tmp_path: Path) -> None:
    refusal = headless_refusal(asked("make test", tmp_path)).message
    assert "acceptEdits" not in refusal
    assert "`--mode bypassPermissions`" in refusal and "--allow 'Bash(" in refusal


def test_the_approval_card_and_its_collapsed_record_mask_secrets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import concurrent.futures

    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    from jupyter_agent.ui.approval import WidgetApproval
    from jupyter_agent.ui.channel import PendingQuestion

    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    monkeypatch.setenv("DEPLOY_TOKEN", "dpl-0123456789abcdef")
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.enabled = False
    InteractiveShell.instance(config=config)
    try:
        request = asked("curl -H 'auth: dpl-0123456789abcdef' https://example.com", tmp_path)
        card = WidgetApproval(ask=PendingQuestion(request=request, reply=concurrent.futures.Future()))
        with capture_output():
            card.show()
        shown = [w.get_state() for w in card.widgets]  # what the page and the saved notebook get
        card.answer(Approve())
        with capture_output() as captured:
            assert card.settle()
        record = captured.outputs[0].data
        everything = repr(shown) + repr(record)
        assert "dpl-0123456789abcdef" not in everything
        assert "[redacted: DEPLOY_TOKEN]" in record["text/plain"]
    finally:
        InteractiveShell.clear_instance()
