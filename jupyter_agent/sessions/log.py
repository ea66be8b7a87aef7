"""Writing a session file: masked JSON lines, appended whole or not at all, fsynced; 0600 in a 0700 directory.

This is the session sink: every string of every record is masked here with the secrets known when it is written,
and when the secrets changed since the file's last write (a value that became a secret after a run read it), the
lines already in the file are masked again first, in one atomic rewrite — so the file written after a secret
became known holds no trace of it.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..base.confined import open_confined, read_confined, write_confined
from ..masking import REGISTRY, masked_with
from ..secret_scan import SecretScanner

Record = dict[str, Any]


def mask_secret_values(text: str) -> str:
    """Replace secret values in `text` before it is saved (an export's text)."""
    return REGISTRY.mask(text)


def encode_record(record: Record, scanner: SecretScanner | None = None) -> bytes:
    """One masked JSON line."""
    masked = REGISTRY.mask_data(record) if scanner is None else masked_with(scanner, record)
    text = json.dumps(masked, ensure_ascii=False, separators=(",", ":"), default=str)
    return (text + "\n").encode("utf-8", "surrogatepass")


def _remasked_line(scanner: SecretScanner, line: bytes) -> bytes:
    """A line of the file masked with `scanner` (a torn or undecodable line is masked as text)."""
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        text = line.decode("utf-8", "replace")
        masked_text = scanner.mask(text)
        return line + b"\n" if masked_text == text else masked_text.encode("utf-8") + b"\n"
    masked = masked_with(scanner, record)
    return line + b"\n" if masked == record else encode_record(masked, scanner)


class SessionLog:
    """Appends records to one session file: whole lines or nothing, fsync; created 0600 in a 0700 directory."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._checked_tail = False
        #: The scanner the file's lines were last masked with (None: not checked since this log was made).
        self._masked_with: SecretScanner | None = None

    def append(self, records: Iterable[Record]) -> None:
        scanner = REGISTRY.scanner()
        data = b"".join(encode_record(r, scanner) for r in records)
        if not data:
            return
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            if scanner is not self._masked_with:
                self._remask(scanner)
            # The package's confinement rule: the file stays in its folder, reached with no link followed.
            fd = open_confined(self.path, (self.path.parent,), os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                if not self._checked_tail:
                    data = self._after_torn_line(fd) + data
                    self._checked_tail = True
                self._write_whole(fd, data)
            finally:
                os.close(fd)

    def _write_whole(self, fd: int, data: bytes) -> None:
        """Write and fsync `data`; on a failure part-way (ENOSPC, EFBIG, EIO) cut the file back to where it was."""
        size = os.fstat(fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        except OSError:
            try:
                os.ftruncate(fd, size)
            except OSError:
                self._checked_tail = False  # a torn line stays: the next write starts on a new line
            raise

    def _after_torn_line(self, fd: int) -> bytes:
        """A newline first when a killed writer left a torn last line, so our first record stays whole."""
        size = os.fstat(fd).st_size
        if size == 0:
            return b""
        return b"" if os.pread(fd, 1, size - 1) == b"\n" else b"\n"

    def _remask(self, scanner: SecretScanner) -> None:
        """Mask the lines already written with the secrets known now; rewritten (atomically) only if one changed."""
        self._masked_with = scanner
        try:
            old = read_confined(self.path, (self.path.parent,))
        except FileNotFoundError:
            return
        lines = old.splitlines(keepends=True)
        new = b"".join(_remasked_line(scanner, line.rstrip(b"\n")) for line in lines if line.strip())
        if new != old:
            write_confined(self.path, new, (self.path.parent,))
            self._checked_tail = True  # the rewrite ends with a whole line
