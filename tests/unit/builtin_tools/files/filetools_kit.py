"""What the file-tool tests share besides the dispatch harness (tests/unit/dispatch_harness.py)."""

from __future__ import annotations

from pathlib import Path


def no_ripgrep() -> str | None:
    """Stands in for a machine without `rg` (the only way to exercise the fallback here)."""
    return None


def scrub(text: str, root: Path) -> str:
    """The text with the temporary directory written as `<root>`, so snapshots don't depend on it."""
    return text.replace(str(root), "<root>")


def png_bytes() -> bytes:
    """A valid 1×1 PNG (hand-assembled, so no imaging library is needed)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00\xff")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
