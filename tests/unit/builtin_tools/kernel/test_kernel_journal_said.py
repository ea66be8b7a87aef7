"""What the kernel journal says, and where: the approval of a RunCode or RunCell names what the call may change
and what undo could not restore (before the call), the result tells the model (after it), and the budget is the
`kernel_undo_budget_mb` setting, mapped into the run's configuration."""

from __future__ import annotations

import builtins
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from dispatch_harness import Approvals, ToolHarness

from jupyter_agent.base.sandbox import Limits, Sandbox
from jupyter_agent.builtin_tools.kernel import InlineMainThread, RunCode
from jupyter_agent.host.configure import run_setup
from jupyter_agent.permissions.policy import Rule
from jupyter_agent.settings import AgentSettings, SettingError
from jupyter_agent.tools.context import ToolServices
from jupyter_agent.tools.core import Preview
from jupyter_agent.tools.dispatch import ApprovalRequest, Approve
from jupyter_agent.ui.approval import ask_on_stdin, preview_html

MB = 1024 * 1024


def call(code: str, tmp_path: Path, namespace: dict[str, Any], budget: int) -> tuple[ApprovalRequest, str]:
    approvals = Approvals(Approve())
    tools = ToolHarness(
        tmp_path,
        [RunCode()],
        approver=approvals,
        limits=Limits(kernel_undo_bytes=budget),
        namespace=namespace,
        services=ToolServices(main_thread=InlineMainThread()),
    )
    result = tools.call("RunCode", {"code": code})
    (request,) = approvals.requests
    return request, result.content


def test_the_approval_says_what_undo_could_not_restore_before_the_call(tmp_path: Path) -> None:
    namespace: dict[str, Any] = {
        "model": np.ones(300_000),  # 2.3 MB against a 1 MB budget
        "batches": (b for b in range(3)),
        "df_rows": [1, 2],
        "n": 1,
    }
    request, content = call(
        "model *= 0.5; next(batches); df_rows.append(3); n = 2; fresh = 1", tmp_path, namespace, MB
    )
    assert request.preview.kind == "code" and request.preview.text.startswith("model *= 0.5")
    assert request.preview.note == (
        "Kernel variables: this call may change model (2.3 MB, not restorable: more than the 1.0 MB "
        "kernel_undo_budget_mb allows), batches (not restorable: a generator cannot be copied); %agent undo can "
        "restore df_rows, n."
    )
    assert content.endswith(
        "[kernel variables this code changed — %agent undo restores: df_rows (changed in place), n (rebound); "
        "%agent undo removes (new): fresh; not restorable: batches (may have changed in place; a generator cannot "
        "be copied), model (may have changed in place; 2.3 MB, more than the 1.0 MB kernel_undo_budget_mb allows)]"
    )


def test_code_that_touches_no_variable_of_the_user_adds_nothing_to_the_approval(tmp_path: Path) -> None:
    request, content = call("print(1 + 1)", tmp_path, {"rows": [1]}, MB)
    assert request.preview.note == ""
    assert content == "2"


def test_code_the_analysis_cannot_read_says_so_in_the_approval(tmp_path: Path) -> None:
    request, _ = call("exec('rows.clear()')", tmp_path, {"rows": [1]}, MB)
    assert request.preview.note == (
        "Kernel variables: exec() may change anything: undo restores the names it rebinds or deletes, not what "
        "it changes inside an object."
    )


def test_the_approval_widget_and_the_terminal_show_the_note_escaped_and_masked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    preview = Preview(
        kind="code", text="x.clear()", language="python", note="this call may change <x> (1 GB)"
    )
    assert (
        '<div class="jp-agent-approval-note" style="font-size:11px;">this call may change &lt;x&gt; (1 GB)</div>'
        in preview_html(preview)
    )
    request = ApprovalRequest(
        tool_use_id="t1",
        title="RunCode x.clear()",
        tool="RunCode",
        input={"code": "x.clear()"},
        preview=preview,
        reason="RunCode runs code",
        suggested_rule=Rule("RunCode"),
    )
    monkeypatch.setattr(builtins, "input", lambda _prompt: "y")
    ask_on_stdin(request)
    assert "x.clear()\nthis call may change <x> (1 GB)\n" in capsys.readouterr().out


def test_the_budget_is_a_setting_of_its_own_name_mapped_into_the_run(tmp_path: Path) -> None:
    default = AgentSettings().kernel_undo_budget_mb
    assert 0 < default <= 512
    settings = AgentSettings(kernel_undo_budget_mb=64)
    setup = run_setup(settings, sandbox=Sandbox.at(tmp_path))
    assert setup.sandbox.limits.kernel_undo_bytes == 64 * MB
    with pytest.raises(
        SettingError,
        match=re.escape("kernel_undo_budget_mb is a memory budget in MB: 0 (copy nothing) or more"),
    ):
        AgentSettings(kernel_undo_budget_mb=-1)
    assert (
        run_setup(
            AgentSettings(kernel_undo_budget_mb=0), sandbox=Sandbox.at(tmp_path)
        ).sandbox.limits.kernel_undo_bytes
        == 0
    )
