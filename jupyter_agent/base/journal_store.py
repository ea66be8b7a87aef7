"""Where run journals keep bytes (a file before a write, a notebook's changed bytes): memory up to a cap, then disk.

A long day of runs keeps every run's journal so any run can be undone or reviewed. What they keep is mostly bytes
nobody will look at again, so the store holds at most `cap_bytes` of them in memory (the `undo_memory_mb`
setting); past that the oldest go to files in this kernel's own directory under the Jupyter data dir
(`<data dir>/jupyter_agent/undo/<pid>-<start time>/`, 0700, files 0600, created without following links), and
`Kept.read()` brings them back. `release()` (`%agent reset`) moves everything to disk.

The files are input like any other when they come back: the base folder and the kernel's own are checked
(directories of this user's, never links), and a record is read without following a link and only if its
size and BLAKE2b digest are those it was written with; anything else is refused with the reason
(`UndoRecordChanged`), so undo skips that change and says why instead of writing bytes nobody journaled.
The kernel's directory goes when the kernel exits; `sweep()` (when the kernel's agent starts, before it keeps
anything) removes what a killed kernel left: the directories of kernels that are gone, and anything else in
the base folder older than `SWEEP_AGE_S` (a link is removed, never followed).
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import hashlib
import itertools
import logging
import os
import shutil
import stat
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from .tempfiles import owner_gone, process_name

log = logging.getLogger(__name__)

#: The `undo_memory_mb` setting's default.
DEFAULT_CAP_MB = 64.0
#: What `sweep()` removes from the base folder though it cannot tell whose it is: anything older (a week).
SWEEP_AGE_S = 7 * 24 * 3600.0


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


class UndoRecordLost(OSError):
    """A spilled undo record could not be read back (its file was removed or cannot be read)."""


class UndoRecordChanged(UndoRecordLost):
    """A spilled undo record's file is not the one written: another size or digest, a link, another owner's."""


class Kept:
    """Bytes a journal keeps; `read()` gives them back, from memory or from the store's disk."""

    __slots__ = ("__weakref__", "_data", "_digest", "_path", "size")

    def __init__(self, data: bytes) -> None:
        self.size = len(data)
        self._data: bytes | None = data
        self._path: Path | None = None
        self._digest = b""  # taken when the bytes go to disk

    @property
    def in_memory(self) -> bool:
        return self._data is not None

    def read(self) -> bytes:
        data = self._data
        if data is not None:
            return data
        path = self._path
        assert path is not None  # spilled: the path is set before the data is dropped
        try:
            data = _read_own_file(path)
        except UndoRecordChanged as exc:
            raise UndoRecordChanged(f"the undo record kept on disk at '{path}' {exc}{_REFUSED}") from None
        except OSError as exc:
            raise UndoRecordLost(
                f"the undo record kept on disk at '{path}' cannot be read ({exc.strerror or exc}); that change "
                "cannot be undone or reviewed"
            ) from None
        if len(data) != self.size:
            why = f"has {len(data)} bytes, not the {self.size} written"
        elif _digest(data) != self._digest:
            why = "changed since it was written (its digest differs)"
        else:
            return data
        raise UndoRecordChanged(f"the undo record kept on disk at '{path}' {why}{_REFUSED}")


_REFUSED = "; it was not used: that change cannot be undone or reviewed, and nothing was written from it"


def _read_own_file(path: Path) -> bytes:
    """The bytes of `path` if it is a regular file of this user's, reached without following a link."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UndoRecordChanged("was replaced by a link") from None
        raise
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(handle.fileno())
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid():
            raise UndoRecordChanged("is no longer a file of this user's")
        return handle.read()


class JournalStore:
    """See the module docstring. Thread-safe: tools journal on the worker, reviews read on the main thread."""

    def __init__(
        self, *, cap_bytes: int = int(DEFAULT_CAP_MB * 2**20), directory: Path | None = None
    ) -> None:
        self.cap_bytes = cap_bytes
        self._directory = directory
        self._made: Path | None = None
        self._lock = threading.Lock()
        self._memory: OrderedDict[int, weakref.ref[Kept]] = OrderedDict()
        self._in_memory = 0
        self._names = itertools.count()

    @property
    def in_memory_bytes(self) -> int:
        with self._lock:
            return self._in_memory

    def configure(self, *, cap_bytes: int, directory: Path | None = None) -> None:
        """A new cap (the setting may change between runs); what is over it now goes to disk."""
        with self._lock:
            self.cap_bytes = max(0, cap_bytes)
            if directory is not None and self._made is None:
                self._directory = directory
        self._spill_over(self.cap_bytes)

    def keep(self, data: bytes) -> Kept:
        kept = Kept(data)
        self.adopt(kept)
        return kept

    def adopt(self, kept: Kept) -> None:
        """Count `kept` against the cap (a journal took it); spill the oldest when over."""
        with self._lock:
            if not kept.in_memory or id(kept) in self._memory:
                return
            self._memory[id(kept)] = weakref.ref(kept, self._forgetter(id(kept), kept.size))
            self._in_memory += kept.size
        self._spill_over(self.cap_bytes)

    def release(self) -> None:
        """Move every kept byte to disk (`%agent reset`): undo still works, the memory is free."""
        self._spill_over(0)

    def _forgetter(self, key: int, size: int) -> Callable[[weakref.ref[Kept]], None]:
        def forget(_ref: weakref.ref[Kept]) -> None:
            with self._lock:
                if self._memory.pop(key, None) is not None:
                    self._in_memory -= size

        return forget

    def _spill_over(self, cap: int) -> None:
        while True:
            with self._lock:
                if self._in_memory <= cap or not self._memory:
                    return
                key, ref = self._memory.popitem(last=False)
                kept = ref()
                if kept is None:
                    continue
                try:
                    directory = self._spill_directory()
                    self._spill(kept, directory)
                except OSError:  # a read-only or full data dir: the records stay in memory, undo still works
                    self._memory[key] = ref
                    self._memory.move_to_end(key, last=False)
                    log.warning("jupyter_agent: undo records could not be moved to disk", exc_info=True)
                    return
                self._in_memory -= kept.size

    def _spill(self, kept: Kept, directory: Path) -> None:
        data = kept._data  # pyright: ignore[reportPrivateUsage]  # the store is the Kept's other half
        if data is None:
            return
        path = directory / f"{next(self._names)}.bin"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            with os.fdopen(fd, "wb") as handle:
                fd = -1
                handle.write(data)
        except BaseException:
            if fd >= 0:
                os.close(fd)
            with contextlib.suppress(OSError):
                path.unlink()
            raise
        kept._digest = _digest(data)  # pyright: ignore[reportPrivateUsage]
        kept._path = path  # pyright: ignore[reportPrivateUsage]
        kept._data = None  # pyright: ignore[reportPrivateUsage]
        weakref.finalize(kept, _unlink, path)

    def sweep(self) -> None:
        """Remove what killed kernels left in the base folder (see the module docstring); at start-up, before
        this kernel keeps anything. Best effort: a base folder that is not this user's is left alone."""
        with self._lock:
            base = self._directory or _default_directory()
            with contextlib.suppress(OSError):
                _check_own_directory(base)
                _sweep(base, keep=self._made)

    def _spill_directory(self) -> Path:
        """This kernel's directory, made on the first spill (called under the lock)."""
        if self._made is None:
            base = self._directory or _default_directory()
            base.mkdir(parents=True, exist_ok=True, mode=0o700)
            _check_own_directory(base)
            _sweep(base, keep=None)
            made = base / process_name(os.getpid())
            made.mkdir(mode=0o700, exist_ok=True)
            _check_own_directory(made)
            atexit.register(shutil.rmtree, made, True)
            self._made = made
        return self._made


def _check_own_directory(path: Path) -> None:
    """`path` is a directory of this user's, not a link, and only theirs to read (made so if it was not)."""
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        raise UndoRecordLost(f"'{path}' is not a directory of this user's; undo records stay in memory")
    if stat.S_IMODE(st.st_mode) != 0o700:
        os.chmod(path, 0o700, follow_symlinks=False)


def _default_directory() -> Path:
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "jupyter_agent" / "undo"


def _sweep(base: Path, *, keep: Path | None) -> None:
    """Remove the directories of kernels that are gone (killed before their exit could), and whatever else is
    older than `SWEEP_AGE_S`; never `keep` (this kernel's), never what a running kernel owns."""
    old = time.time() - SWEEP_AGE_S
    with contextlib.suppress(OSError):
        for entry in os.scandir(base):
            if keep is not None and entry.path == str(keep):
                continue
            with contextlib.suppress(OSError):
                if entry.is_dir(follow_symlinks=False):
                    if _kernel_name(entry.name) and not owner_gone(entry.name):
                        continue  # a running kernel's
                    if _kernel_name(entry.name) or entry.stat(follow_symlinks=False).st_mtime < old:
                        shutil.rmtree(entry.path, ignore_errors=True)
                elif entry.stat(follow_symlinks=False).st_mtime < old:
                    os.unlink(entry.path)  # a file or a link: the link itself


def _kernel_name(name: str) -> bool:
    """Whether `name` is a `process_name` (`<pid>-<start time>`)."""
    pid, dash, started = name.partition("-")
    return pid.isdigit() and dash == "-" and (started.isdigit() or started == "unknown")


def _unlink(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


#: The store of this process (the kernel's): its journals keep their bytes here.
STORE = JournalStore()
