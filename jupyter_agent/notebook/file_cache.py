"""The file backend's notebooks as parsed, by path: a notebook file is parsed once per change of the file.

Each entry is kept with the file's stamp (device, inode, size, mtime and ctime in ns) and a digest of its bytes.
A later read that finds the same stamp uses the entry without reading the file — unless the stamp is "racy": a
file changed within `RACY_NS` of when it was read could be changed again in the same clock tick with the same
size, and its stamp would not show it. Then the file is read and compared with the bytes the entry keeps while
it is racy (`data`: what was read, or what the backend wrote), as git's index does with its racily clean
entries; once the file is seen to hold them after the racy window, the stamp is trusted again. Nothing can set a
file's ctime, so a change after that always shows. The entry's digest (SHA-256) is what the undo journal
compares. The notebook in use keeps its bytes, so its next edit splices without reading the file.

The parsed notebook of an entry is shared and must not be changed: the backend applies ops to a copy of the
cell list and replaces a cell it changes (`apply.py`), never edits one in place.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from ..base.notebook_shape import NotebookShape
from .cells import Cell
from .file_splice import Span
from .layout import Layout

#: How long after a change a stamp is not trusted alone: a few clock ticks where timestamps have sub-second
#: precision, two seconds where they are whole seconds (FAT keeps two, some network file systems one).
RACY_NS = 50_000_000
RACY_COARSE_NS = 2_000_000_000
_SECOND = 1_000_000_000
#: Notebooks kept parsed (the most recently used); each costs about its file's size in memory.
MAX_ENTRIES = 4


@dataclass(frozen=True)
class Stamp:
    device: int
    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> Stamp:
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def digest_of(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


@dataclass(kw_only=True)
class ParsedFile:
    """One notebook file as parsed: `nb` (ids filled in), the layout to write it in, and each cell's span in the
    file's bytes (`file_splice`). `whole` is False when reading changed the notebook's top level (an upgrade,
    `nbformat_minor` raised to 5): its next write must serialize the whole file."""

    nb: dict[str, Any]
    layout: Layout
    spans: list[Span]
    whole: bool
    digest: bytes
    #: The file's bytes, kept while the stamp is racy (to compare) and for the most recently used notebook (its
    #: next edit splices into them without reading the file again); None otherwise.
    data: bytes | None = None
    #: The file's form as read, before ids were filled in (what undo names if it cannot restore the bytes).
    shape: NotebookShape | None = None
    stamp: Stamp | None = None
    #: When the file was last known to hold these bytes (ns, taken before the stat that made `stamp`).
    checked_ns: int = 0
    _cells: tuple[Cell, ...] | None = field(default=None, repr=False)

    @property
    def cell_list(self) -> list[dict[str, Any]]:
        return cast(list[dict[str, Any]], self.nb["cells"])

    def cells(self) -> tuple[Cell, ...]:
        """The cells as the tools see them, made once per parse."""
        if self._cells is None:
            self._cells = tuple(Cell.from_json(c) for c in self.cell_list)
        return self._cells

    def racy(self) -> bool:
        """Whether a change could hide behind the stamp: the file changed within `RACY_NS` before it was last
        known to hold these bytes (or that was never checked: `checked_ns` 0). Checking again later clears it."""
        stamp = self.stamp
        assert stamp is not None
        coarse = stamp.mtime_ns % _SECOND == 0 and stamp.ctime_ns % _SECOND == 0
        changed = max(stamp.mtime_ns, stamp.ctime_ns)
        return self.checked_ns == 0 or changed >= self.checked_ns - (RACY_COARSE_NS if coarse else RACY_NS)

    def holds(self, data: bytes, stamp: Stamp) -> bool:
        """Whether `data`, read after `stamp` was taken, are the bytes this entry was parsed from: the stamp is the
        entry's, and either it is not racy or the bytes are the ones kept for that."""
        if self.stamp != stamp:
            return False
        return not self.racy() or (self.data is not None and data == self.data)


class FileCache:
    """Parsed notebooks by real path (see the module docstring); thread-safe."""

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[Path, ParsedFile] = OrderedDict()
        self._lock = threading.Lock()
        #: How many times a file was parsed (for tests and the benchmark).
        self.parses = 0
        #: Wall-clock time in ns, the clock file stamps are on.
        self.clock: Callable[[], int] = time.time_ns

    def load(self, path: Path, parse: Callable[[bytes], ParsedFile]) -> tuple[ParsedFile, bytes | None]:
        """The file parsed, and its bytes when they had to be read (None: the stamp vouched for the entry).

        Raises what `path.read_bytes()` and `parse` raise."""
        checked = self.clock()
        stamp = Stamp.of(os.stat(path))
        with self._lock:
            entry = self._entries.get(path)
        if entry is not None and entry.stamp == stamp and not entry.racy():
            self._touch(path, entry)
            return entry, None
        data = path.read_bytes()
        if entry is not None and entry.holds(data, stamp):
            entry.checked_ns = checked
            self._touch(path, entry)
            return entry, data
        parsed = parse(data)
        self.parses += 1
        self.keep(path, parsed, stamp, checked, data)
        return parsed, data

    def keep(self, path: Path, parsed: ParsedFile, stamp: Stamp, checked_ns: int, data: bytes) -> None:
        """Remember `parsed` as what the file with `stamp` holds: `data`, as read at `checked_ns` or as the
        backend wrote it (0: not yet seen on disk)."""
        parsed.stamp, parsed.data, parsed.checked_ns = stamp, data, checked_ns
        self._touch(path, parsed)

    def forget(self, path: Path) -> None:
        with self._lock:
            self._entries.pop(path, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def _touch(self, path: Path, entry: ParsedFile) -> None:
        with self._lock:
            self._entries[path] = entry
            self._entries.move_to_end(path)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
            for other in self._entries.values():
                if other is not entry and other.data is not None and not other.racy():
                    other.data = None  # only the notebook in use keeps its bytes


#: The one cache of this process (the kernel's): every FileNotebook of a path shares its parse.
FILES = FileCache()
