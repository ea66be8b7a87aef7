"""A session's background shell jobs (`Bash` with run_in_background): their processes and unread output.

Kept apart from the tools that read and stop them (`jobs.py`) so the tool services can name the table without
importing a tool.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import subprocess
import threading
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..base.errors import ToolError
from ..masking import clip
from ..permissions.process import kill_group

#: Unread output kept per job (head and tail); more is cut from the middle until the next read.
MAX_UNREAD_BYTES = 512 * 1024
_KILL_GRACE = 2.0


@dataclass(kw_only=True)
class Job:
    id: str
    command: str
    proc: subprocess.Popen[bytes]
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    dropped: int = 0
    killed: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: The roots and the kernel start-up files they held when the job started: new ones are removed at its end.
    startup: tuple[tuple[Path, ...], set[Path]] | None = None
    #: What was removed then, told with the next output.
    removed: list[str] = field(default_factory=list[str])
    #: Set when the reader has reached the end of the output (the process may exit before its pipe is read).
    drained: threading.Event = field(default_factory=threading.Event)

    def feed(self, chunk: bytes) -> None:
        with self.lock:
            half = MAX_UNREAD_BYTES // 2
            room = half - len(self.head)
            if room > 0:
                self.head += chunk[:room]
                chunk = chunk[room:]
            self.tail += chunk
            excess = len(self.tail) - half
            if excess > 0:
                self.dropped += excess
                del self.tail[:excess]

    def take(self) -> str:
        """The output since the last read (and forget it)."""
        with self.lock:
            text = self.head.decode("utf-8", "replace")
            if self.dropped:
                text += f"\n… [{self.dropped} bytes of output cut here] …\n"
            text += self.tail.decode("utf-8", "replace")
            self.head, self.tail, self.dropped = bytearray(), bytearray(), 0
            return text

    def status(self) -> str:
        code = self.proc.poll()
        if code is None:
            return "running"
        if self.killed:
            return "killed by KillShell"
        return f"exited with code {code}" if code >= 0 else f"killed by signal {-code}"


class BackgroundJobs:
    """One session's jobs."""

    def __init__(self) -> None:
        self.jobs: dict[str, Job] = {}
        self._count = 0
        self._lock = threading.Lock()
        _ALL.add(self)

    def start(
        self,
        command: str,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        roots: tuple[tuple[Path, ...], set[Path]] | None = None,
    ) -> Job:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        with self._lock:
            self._count += 1
            job = Job(id=f"bash_{self._count}", command=command, proc=proc, startup=roots)
            self.jobs[job.id] = job
        threading.Thread(target=_read, args=(job,), name=f"jupyter-agent-{job.id}", daemon=True).start()
        return job

    def get(self, job_id: str) -> Job:
        job = self.jobs.get(job_id)
        if job is None:
            known = ", ".join(self.jobs) or "none yet"
            raise ToolError(
                "INVALID_ARGS", f"there is no background job '{job_id}'; this session's jobs: {known}"
            )
        return job

    def kill(self, job: Job) -> None:
        if job.proc.poll() is not None:
            return
        job.killed = True
        kill_group(job.proc.pid, signal.SIGTERM)
        try:
            job.proc.wait(_KILL_GRACE)
        except subprocess.TimeoutExpired:
            kill_group(job.proc.pid, signal.SIGKILL)
            job.proc.wait()
        kill_group(job.proc.pid, signal.SIGKILL)  # whatever the leader left behind in its group

    def kill_all(self) -> None:
        for job in list(self.jobs.values()):
            self.kill(job)

    def listing(self) -> str:
        if not self.jobs:
            return "no background jobs"
        return "\n".join(f"{j.id:<8} {j.status():<22} {clip(j.command, 80)}" for j in self.jobs.values())


def _read(job: Job) -> None:
    stream = job.proc.stdout
    if stream is None:
        return
    with contextlib.suppress(OSError, ValueError):
        while chunk := os.read(stream.fileno(), 64 * 1024):
            job.feed(chunk)
    job.drained.set()
    job.proc.wait()
    if job.startup is not None:
        from ..permissions.sandbox_guard import remove_new_startup_files

        job.removed = remove_new_startup_files(*job.startup)


_ALL: weakref.WeakSet[BackgroundJobs] = weakref.WeakSet()


@atexit.register
def kill_every_job() -> None:
    """Jobs die with the kernel."""
    for jobs in list(_ALL):
        jobs.kill_all()
