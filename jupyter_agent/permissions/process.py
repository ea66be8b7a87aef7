"""Run a subprocess with a timeout that kills its whole process group, and bounded output memory."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..base.stopping import within
from ..masking import cap_text

_CHUNK = 64 * 1024


@dataclass(frozen=True, kw_only=True)
class ProcessResult:
    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool
    #: Bytes dropped from the middle of stdout/stderr because they went over the cap.
    dropped: int = 0


class _BoundedBuffer:
    """Keeps the first and last `limit // 2` bytes of a stream, so a runaway process can't eat memory."""

    def __init__(self, limit: int) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.half = max(limit // 2, 1)
        self.dropped = 0

    def feed(self, chunk: bytes) -> None:
        room = self.half - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            excess = len(self.tail) - self.half
            if excess > 0:
                self.dropped += excess
                del self.tail[:excess]

    def text(self, max_chars: int) -> str:
        body = self.head.decode("utf-8", "replace")
        if self.dropped:
            body += f"\n… [{self.dropped} bytes cut from the middle of the output] …\n"
        body += self.tail.decode("utf-8", "replace")
        return cap_text(body, max_chars)


async def _pump(stream: asyncio.StreamReader | None, buffer: _BoundedBuffer) -> None:
    if stream is None:
        return
    while chunk := await stream.read(_CHUNK):
        buffer.feed(chunk)


def kill_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


async def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    timeout: float,
    env: Mapping[str, str] | None = None,
    max_output_chars: int = 30_000,
    grace: float = 2.0,
    stdin: bytes | None = None,
) -> ProcessResult:
    """Run `argv` in its own session; on timeout or cancellation SIGTERM the group, then SIGKILL after `grace`."""
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=dict(env) if env is not None else None,
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    out, err = _BoundedBuffer(max_output_chars * 2), _BoundedBuffer(max_output_chars)
    if stdin is not None and proc.stdin is not None:
        proc.stdin.write(stdin)
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            await proc.stdin.drain()
        proc.stdin.close()
    readers = asyncio.gather(_pump(proc.stdout, out), _pump(proc.stderr, err))
    timed_out = False
    try:
        await within(asyncio.shield(proc.wait()), timeout)
    except TimeoutError:
        timed_out = True
        await _terminate(proc, grace)
    except asyncio.CancelledError:
        await _terminate(proc, grace)
        readers.cancel()
        raise
    # Children that inherited the pipes could keep them open after the leader exits.
    kill_group(proc.pid, signal.SIGKILL)
    try:
        await within(readers, grace)
    except TimeoutError:
        readers.cancel()
    return ProcessResult(
        returncode=proc.returncode,
        stdout=out.text(max_output_chars),
        stderr=err.text(max_output_chars // 2),
        timed_out=timed_out,
        dropped=out.dropped + err.dropped,
    )


async def _terminate(proc: asyncio.subprocess.Process, grace: float) -> None:
    kill_group(proc.pid, signal.SIGTERM)
    try:
        await within(proc.wait(), grace)
    except TimeoutError:
        kill_group(proc.pid, signal.SIGKILL)
        await proc.wait()
