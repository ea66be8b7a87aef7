"""Background shell jobs: Bash `run_in_background`, BashOutput and KillShell, per session.

A job runs in its own process group (so KillShell and the kernel's exit stop everything it started), with
the same sandbox, environment scrubbing and rules as Bash, since it is started by a Bash call through the
Dispatcher. A reader thread keeps its unread output in a bounded buffer (head and tail, the middle cut and
counted); BashOutput returns what arrived since the last read. Jobs are numbered `bash_1`, `bash_2`, … in
order per session, and all of them are killed when the kernel exits or the extension is unloaded.
"""

from __future__ import annotations

import asyncio

from ..base.linear_regex import Matcher, compile_linear
from ..base.result import ToolResult
from ..masking import cap_text
from ..tools.context import ToolContext
from ..tools.core import Tool, ToolAnnotations, ToolInput
from ..tools.job_table import BackgroundJobs


def background_jobs(ctx: ToolContext) -> BackgroundJobs:
    return ctx.services.jobs


class BashOutputInput(ToolInput):
    bash_id: str
    """The id Bash returned for the background job, e.g. "bash_1"."""
    filter: str | None = None
    """A regular expression: only output lines matching it are returned (the others are skipped too)."""


class KillShellInput(ToolInput):
    shell_id: str
    """The id of the background job to stop, e.g. "bash_1"."""


#: Reading or stopping a job this session started changes nothing else: neither asks.
_OWN_JOBS = ToolAnnotations(read_only=True, destructive=False)
#: Seconds an ended job's output may take to be read to its end (a process it left behind may hold the pipe).
DRAIN_WAIT = 2.0


class BashOutput(Tool[BashOutputInput]):
    name = "BashOutput"
    description = (
        "Read the output of a background Bash job (started with run_in_background) since your last read, and "
        "whether it is still running or how it ended. filter keeps only lines matching a regular expression."
    )
    kind = "read"
    annotations = _OWN_JOBS
    Input = BashOutputInput

    async def run(self, params: BashOutputInput, ctx: ToolContext) -> ToolResult:
        pattern = compile_linear(params.filter, what="filter") if params.filter is not None else None
        job = background_jobs(ctx).get(params.bash_id)
        status = job.status()
        if status != "running":  # the process has ended: what it wrote is read to the end before it is taken
            await asyncio.to_thread(job.drained.wait, DRAIN_WAIT)
        text = job.take()
        if (
            pattern is not None
        ):  # RE2: linear in the output; off the event loop, so the kernel stays responsive
            text = await asyncio.to_thread(_keep_matching, text, pattern)
        # the job keeps 512 KB unread; one read returns what Bash would (head and tail, the cut counted)
        body = cap_text(text.rstrip("\n"), ctx.sandbox.limits.max_output_chars) or "(no new output)"
        if job.removed:
            from ..permissions.sandbox_guard import removed_note

            body += "\n\n" + removed_note(job.removed)
            job.removed = []
        return ToolResult.ok(f"status: {status}\n{body}", summary=f"{job.id}: {status}")


def _keep_matching(text: str, pattern: Matcher) -> str:
    return "\n".join(line for line in text.splitlines() if pattern.search(line))


class KillShell(Tool[KillShellInput]):
    name = "KillShell"
    description = "Stop a background Bash job and every process it started (SIGTERM, then SIGKILL)."
    kind = "other"
    annotations = _OWN_JOBS
    Input = KillShellInput

    async def run(self, params: KillShellInput, ctx: ToolContext) -> ToolResult:
        jobs = background_jobs(ctx)
        job = jobs.get(params.shell_id)
        before = job.status()
        if before != "running":
            return ToolResult.ok(f"{job.id} had already ended ({before}); nothing to stop")
        await asyncio.to_thread(jobs.kill, job)
        return ToolResult.ok(f"{job.id} was stopped ({job.status()})", summary=f"stopped {job.id}")
