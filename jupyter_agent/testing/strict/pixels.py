"""An image's pixel size from its header (PNG, JPEG, GIF, WebP), with the standard library, and the tokens the API
counts for it (docs "Vision": scaled to at most 1568 px on the long edge, then about one token per 28 x 28 px)."""

from __future__ import annotations

import base64
import binascii
import math
import struct

_HEADER_CHARS = 1024 * 1024  # enough base64 to reach any real header (JPEG's SOF may follow large EXIF data)
_LONG_EDGE = 1568


def image_size(data: bytes) -> tuple[str, int, int] | None:
    """(media type, width, height) from an image's header, or None when it is none of the four formats."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return "image/png", width, height
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        width, height = struct.unpack("<HH", data[6:10])
        return "image/gif", width, height
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp_size(data)
    if data.startswith(b"\xff\xd8"):
        return _jpeg_size(data)
    return None


def _webp_size(data: bytes) -> tuple[str, int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        width = 1 + int.from_bytes(data[24:27], "little")
        height = 1 + int.from_bytes(data[27:30], "little")
        return "image/webp", width, height
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return "image/webp", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 " and len(data) >= 30:
        width, height = struct.unpack("<HH", data[26:30])
        return "image/webp", width & 0x3FFF, height & 0x3FFF
    return None


def _jpeg_size(data: bytes) -> tuple[str, int, int] | None:
    position = 2
    while position + 9 <= len(data):
        if data[position] != 0xFF:
            return None
        marker = data[position + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            position += 2
            continue
        length = int.from_bytes(data[position + 2 : position + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[position + 5 : position + 9])
            return "image/jpeg", width, height
        position += 2 + length
    return None


def decoded_head(data: str) -> bytes | None:
    head = data[: _HEADER_CHARS - _HEADER_CHARS % 4] if len(data) > _HEADER_CHARS else data
    try:
        return base64.b64decode(head, validate=True)
    except (binascii.Error, ValueError):
        return None


def image_tokens(data: str) -> int:
    """About what the API counts for a base64 image; a header it cannot read counts as the largest image."""
    head = decoded_head(data)
    found = image_size(head) if head is not None else None
    width, height = (found[1], found[2]) if found is not None else (_LONG_EDGE, _LONG_EDGE)
    scale = min(1.0, _LONG_EDGE / max(width, height, 1))
    return max(1, math.ceil(width * scale / 28) * math.ceil(height * scale / 28))
