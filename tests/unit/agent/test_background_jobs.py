"""Background jobs: Bash run_in_background returns at once, the job outlives the run, BashOutput reads what
came since the last read, KillShell stops the whole process group."""

from __future__ import annotations

import os
import time
from pathlib import Path

from agent_testkit import HarnessFactory, result_text, tool_results
from dispatch_harness import ToolHarness

from jupyter_agent.builtin_tools.jobs import BashOutput, KillShell, background_jobs
from jupyter_agent.builtin_tools.shell import bash_tool
from jupyter_agent.testing import Text, ToolUse, Turn
from jupyter_agent.tools.job_table import Job

JOB_TOOLS = [bash_tool(), BashOutput(), KillShell()]


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes whose process group is `pgid`."""
    found: list[int] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z" and int(fields[2]) == pgid:
            found.append(int(entry))
    return found


def wait_until_gone(pgid: int, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while group_members(pgid):
        assert time.monotonic() < deadline, f"processes of group {pgid} survived: {group_members(pgid)}"
        time.sleep(0.02)


def wait_for_output(job: Job, text: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while text.encode() not in bytes(job.head) + bytes(job.tail):
        assert time.monotonic() < deadline, f"{job.id} did not print {text!r}"
        time.sleep(0.02)


def test_a_background_job_outlives_its_run_and_killshell_stops_its_whole_group(
    harness: HarnessFactory,
) -> None:
    start = {"command": "sleep 300 & echo started; sleep 300; echo never", "run_in_background": True}
    h = harness(
        [
            Turn(blocks=[ToolUse(name="Bash", input=start)]),
            Turn(blocks=[Text("It runs in the background.")]),
            Turn(blocks=[ToolUse(name="BashOutput", input={"bash_id": "bash_1"})]),
            Turn(blocks=[ToolUse(name="KillShell", input={"shell_id": "bash_1"})]),
            Turn(blocks=[Text("Stopped.")]),
        ],
        tools=JOB_TOOLS,
        mode="bypassPermissions",
    )
    assert h.run("start the server").reason == "end_turn"
    assert result_text(tool_results(h.server.requests[1])[0]).startswith(
        "Started in the background as bash_1."
    )
    job = background_jobs(h.session.ctx).get("bash_1")
    wait_for_output(job, "started")
    assert job.status() == "running"  # the run is over, the job is not
    pgid = job.proc.pid
    assert len(group_members(pgid)) >= 2  # "started" comes after the background sleep was forked
    h.run("check it, then stop it")
    read, killed = (result_text(tool_results(h.server.requests[i])[0]) for i in (3, 4))
    assert read == "status: running\nstarted"
    assert killed == "bash_1 was stopped (killed by KillShell)"
    wait_until_gone(pgid)  # SIGKILL is delivered asynchronously: the group empties within moments
    assert "never" not in job.take()


def test_ids_go_in_order_and_output_is_read_once_with_an_optional_filter(tmp_path: Path) -> None:
    tools = ToolHarness(tmp_path, JOB_TOOLS, mode="bypassPermissions")
    script = "printf 'ok 1\\nerror 2\\nok 3\\n'; sleep 300"
    first = tools.call("Bash", command=script, run_in_background=True)
    second = tools.call("Bash", command="echo done", run_in_background=True)
    assert "bash_1" in first.content and "bash_2" in second.content
    jobs = background_jobs(tools.ctx)
    wait_for_output(jobs.get("bash_1"), "ok 3")
    assert tools.call("BashOutput", bash_id="bash_1", filter="^ok").content == "status: running\nok 1\nok 3"
    assert tools.call("BashOutput", bash_id="bash_1").content == "status: running\n(no new output)"
    jobs.get("bash_2").proc.wait(20)
    assert tools.call("BashOutput", bash_id="bash_2").content == "status: exited with code 0\ndone"
    assert "already ended" in tools.call("KillShell", shell_id="bash_2").content
    unknown = tools.call("BashOutput", bash_id="bash_9")
    assert unknown.error_code == "INVALID_ARGS" and "bash_1, bash_2" in unknown.content
    assert tools.call("BashOutput", bash_id="bash_1", filter="(").error_code == "INVALID_ARGS"
    assert "bash_1   running" in jobs.listing()
    jobs.kill_all()
    assert jobs.get("bash_1").status() == "killed by KillShell"


def test_a_background_command_obeys_the_bash_rules(tmp_path: Path) -> None:
    tools = ToolHarness(tmp_path, JOB_TOOLS, mode="bypassPermissions", deny=["Bash(sleep:*)"])
    result = tools.call("Bash", command="sleep 300", run_in_background=True)
    assert result.error_code == "DENIED"
    assert background_jobs(tools.ctx).jobs == {}


def test_a_filter_that_backtracks_for_ever_in_python_returns_at_once_and_a_backreference_is_refused(
    tmp_path: Path,
) -> None:
    tools = ToolHarness(tmp_path, JOB_TOOLS, mode="bypassPermissions")
    tools.call("Bash", command="printf 'a%.0s' $(seq 1 5000); echo; echo ok", run_in_background=True)
    job = background_jobs(tools.ctx).get("bash_1")
    job.proc.wait(20)
    # `(a|aa)*c` on 5,000 a's takes Python's re longer than the age of the universe; RE2 a linear pass
    assert tools.call("BashOutput", bash_id="bash_1", filter="(a|aa)*c|^ok").content.endswith("\nok")
    refused = tools.call("BashOutput", bash_id="bash_1", filter="(a)\\1")
    assert refused.error_code == "INVALID_ARGS" and "backreferences and lookaround" in refused.content


def test_an_ended_jobs_output_still_in_its_pipe_is_read_before_it_is_reported(tmp_path: Path) -> None:
    """The process can exit before the reader has read its last output: BashOutput waits for the reader."""
    import subprocess
    import threading

    tools = ToolHarness(tmp_path, JOB_TOOLS, mode="bypassPermissions")
    proc = subprocess.Popen(["true"], stdout=subprocess.DEVNULL)
    proc.wait(10)
    job = Job(id="bash_9", command="true", proc=proc)
    background_jobs(tools.ctx).jobs[job.id] = job

    def slow_reader() -> None:  # the reader thread, late: it reaches the end of the pipe after the exit
        time.sleep(0.3)
        job.feed(b"the last line\n")
        job.drained.set()

    threading.Thread(target=slow_reader).start()
    result = tools.call("BashOutput", bash_id="bash_9")
    assert result.content == "status: exited with code 0\nthe last line", result.content
