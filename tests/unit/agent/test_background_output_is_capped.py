"""One BashOutput read returns at most what one Bash call would (`Limits.max_output_chars`, head and tail with
the cut counted), although a job keeps up to 512 KB of unread output: a chatty job must not put ~130k tokens
into a single tool result."""

from __future__ import annotations

import subprocess
from pathlib import Path

from dispatch_harness import ToolHarness

from jupyter_agent.base.sandbox import Limits
from jupyter_agent.builtin_tools.jobs import BashOutput, KillShell, background_jobs
from jupyter_agent.tools.job_table import Job


def ended_job_with_output(tools: ToolHarness, output: bytes) -> None:
    proc = subprocess.Popen(["true"], stdout=subprocess.DEVNULL)
    proc.wait(10)
    job = Job(id="bash_1", command="seq 1 100000", proc=proc)
    job.feed(output)
    job.drained.set()
    background_jobs(tools.ctx).jobs[job.id] = job


def test_a_large_unread_output_comes_back_cut_to_the_output_cap_with_head_and_tail(tmp_path: Path) -> None:
    tools = ToolHarness(
        tmp_path, [BashOutput(), KillShell()], mode="bypassPermissions", limits=Limits(max_output_chars=2_000)
    )
    lines = "".join(f"line {n}\n" for n in range(1, 40_001))
    ended_job_with_output(tools, lines.encode())
    text = tools.ok("BashOutput", bash_id="bash_1").content
    assert len(text) < 2_000 + 200, len(text)
    assert text.startswith("status: exited with code 0\nline 1\nline 2\n")
    assert text.endswith("line 40000")
    assert "characters (" in text and "lines) cut: output over 2000 characters" in text


def test_output_under_the_cap_comes_back_whole(tmp_path: Path) -> None:
    tools = ToolHarness(tmp_path, [BashOutput(), KillShell()], mode="bypassPermissions")
    ended_job_with_output(tools, b"".join(b"row %d\n" % n for n in range(1_000)))
    text = tools.ok("BashOutput", bash_id="bash_1").content
    assert text == "status: exited with code 0\n" + "\n".join(f"row {n}" for n in range(1_000))
