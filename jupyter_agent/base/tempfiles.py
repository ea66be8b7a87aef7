"""Temp files of `atomic_write` that a killed kernel left behind, found and removed by the next run.

`atomic_write` writes `.<name>.<pid>-<random>.jupyter-agent.tmp` next to the target and renames it over the
target; a kill -9 between the two leaves the temp file. Finding those by walking the project would be slow
and would guess, so each kernel notes, once per directory and before its first temp file there, the
directories it writes in: a ledger `<jupyter data dir>/jupyter_agent/inflight/<pid>-<start time>.dirs`.
`sweep_stale()` (at the start of every run) reads the ledgers of kernels that are gone and removes, in the
directories they list, only the temp files of our pattern that carry the dead kernel's pid; then the ledger.

A ledger that cannot be written (a read-only data dir) leaves writes working as before, just not swept.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from pathlib import Path

SUFFIX = ".jupyter-agent.tmp"

_noted: set[Path] = set()
_lock = threading.Lock()


def temp_name(name: str, token: str) -> str:
    """The temp file's name for the target `name` (`token`: a random hex string)."""
    return f".{name}.{os.getpid()}-{token}{SUFFIX}"


#: A process in these states has ended: a zombie (`Z`) stays in /proc, with its start time, until its parent
#: reaps it — a kernel killed with kill -9 is one until the Jupyter server or jupyter_client polls it.
_ENDED_STATES = frozenset({"Z", "X", "x"})


def _start_time(pid: int) -> str | None:
    """The start time (clock ticks since boot) of a running process, which tells a pid reused by another process
    apart; None when there is no such process, or it has ended."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()
    return None if fields[0] in _ENDED_STATES else fields[19]


def _ledger_dir() -> Path:
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "jupyter_agent" / "inflight"


def process_name(pid: int) -> str:
    """`<pid>-<start time>`: a name for what process `pid` leaves on disk, which tells a reused pid apart."""
    return f"{pid}-{_start_time(pid) or 'unknown'}"


def owner_gone(name: str) -> bool:
    """Whether the process a `process_name` names has ended."""
    return not _alive(name)


def _ledger_name(pid: int) -> str:
    return f"{process_name(pid)}.dirs"


def note_directory(directory: Path) -> None:
    """Record that this process may leave temp files in `directory` (once per directory; best effort)."""
    with _lock:
        if directory in _noted:
            return
        _noted.add(directory)
    try:
        ledgers = _ledger_dir()
        ledgers.mkdir(parents=True, exist_ok=True, mode=0o700)
        with open(ledgers / _ledger_name(os.getpid()), "a", encoding="utf-8", errors="surrogateescape") as f:
            f.write(f"{directory}\n")
    except OSError:
        pass


def _alive(ledger: str) -> bool:
    pid_text, _, started = ledger.removesuffix(".dirs").partition("-")
    try:
        pid = int(pid_text)
    except ValueError:
        return True  # not ours to judge
    now = _start_time(pid)
    if now is None:
        if Path("/proc/self/stat").exists():
            return False  # /proc works and has no such process
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except OSError:
            return True
        return True
    return started in ("unknown", now)


def sweep_stale() -> int:
    """Remove the temp files kernels that are gone left behind; how many were removed."""
    try:
        ledgers = list(_ledger_dir().glob("*.dirs"))
    except OSError:
        return 0
    removed = 0
    for ledger in ledgers:
        if _alive(ledger.name):
            continue
        pid = ledger.name.partition("-")[0]
        pattern = re.compile(rf"^\..+\.{pid}-[0-9a-f]+{re.escape(SUFFIX)}\Z")
        try:
            directories = ledger.read_text(encoding="utf-8", errors="surrogateescape").splitlines()
        except OSError:
            continue
        for directory in dict.fromkeys(directories):
            removed += _remove_matching(Path(directory), pattern)
        with contextlib.suppress(OSError):
            ledger.unlink()
    return removed


def _remove_matching(directory: Path, pattern: re.Pattern[str]) -> int:
    removed = 0
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        if pattern.match(entry.name) and entry.is_file(follow_symlinks=False):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
                removed += 1
    return removed
