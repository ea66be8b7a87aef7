"""What an image's bytes really are: the format its magic bytes name and the size its header gives.

A declared media type is a claim (a notebook output's MIME key, an MCP server's `mimeType`, a file's
extension); the Messages API checks the bytes and rejects a block that is not a PNG, JPEG, GIF or WebP it
can decode, and that rejection would end every later request of the conversation. So an image is sniffed
before it goes to the model: `sniff(data)` gives the format and the pixel size read from the header, or says
why these bytes are not an image the model can read.
"""

from __future__ import annotations

import base64
import binascii
import struct
from dataclasses import dataclass

from ..masking import clip
from .result import ImageContent

#: The API's limit on either side of an image, in pixels.
MAX_SIDE = 8000
#: The API's limit on one image as sent: 5 MB of base64 (the Claude API's docs now say 10 MB; Bedrock and Vertex
#: say 5 MB, and so did the API's own error text), and the largest image whose base64 fits.
MAX_IMAGE_BASE64 = 5 * 1024 * 1024
MAX_IMAGE_BYTES = MAX_IMAGE_BASE64 // 4 * 3

_PNG = b"\x89PNG\r\n\x1a\n"
#: JPEG markers that carry no length (restart markers, start/end of image, TEM).
_STANDALONE = frozenset({0x01, *range(0xD0, 0xDA)})
#: Start-of-frame markers (they hold the size): C0–CF except DHT (C4), JPG (C8) and DAC (CC).
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


@dataclass(frozen=True, kw_only=True)
class ImageFacts:
    """A readable image: its real media type and its size in pixels."""

    media_type: str
    width: int
    height: int


@dataclass(frozen=True)
class NotAnImage:
    """Why these bytes cannot go to the model as an image (one line)."""

    reason: str


def sniff(data: bytes) -> ImageFacts | NotAnImage:
    """The format and size these bytes really have, or why they are not an image the model can read."""
    if not data:
        return NotAnImage("it is empty (0 bytes)")
    facts: ImageFacts | None
    if data.startswith(_PNG):
        facts = _png(data)
    elif data[:3] == b"\xff\xd8\xff":
        facts = _jpeg(data)
    elif data[:6] in (b"GIF87a", b"GIF89a"):
        facts = _gif(data)
    elif data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        facts = _webp(data)
    else:
        head = data[:64].decode(
            "latin-1"
        )  # cut-ok: masked next; a secret run in the 8 shown bytes ends inside it
        start = clip(head, 8, marker="").encode("latin-1", "replace")
        return NotAnImage(
            f"its {len(data)} bytes are not a PNG, JPEG, GIF or WebP image (they start {start!r})"
        )
    if facts is None:
        return NotAnImage(f"its {len(data)} bytes start like an image but its header is cut or broken")
    if facts.width < 1 or facts.height < 1:
        return NotAnImage(f"its header gives a size of {facts.width}×{facts.height} pixels")
    if facts.width > MAX_SIDE or facts.height > MAX_SIDE:
        return NotAnImage(
            f"it is {facts.width}×{facts.height} pixels, over the {MAX_SIDE}-pixel side the model accepts"
        )
    if len(data) > MAX_IMAGE_BYTES:
        return NotAnImage(
            f"it is {len(data) / 1024**2:.2f} MB, {(len(data) + 2) // 3 * 4 / 1024**2:.2f} MB as sent (base64), over "
            f"the {MAX_IMAGE_BASE64 // 1024**2} MB the model accepts per image; save a smaller copy (a lower dpi, "
            "JPEG) and use that"
        )
    return facts


def _png(data: bytes) -> ImageFacts | None:
    if len(data) < 24 or data[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", data[16:24])
    return ImageFacts(media_type="image/png", width=width, height=height)


def _gif(data: bytes) -> ImageFacts | None:
    if len(data) < 10:
        return None
    width, height = struct.unpack("<HH", data[6:10])
    return ImageFacts(media_type="image/gif", width=width, height=height)


def _webp(data: bytes) -> ImageFacts | None:
    chunk = data[12:16]
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", data[26:30])
        return ImageFacts(media_type="image/webp", width=width & 0x3FFF, height=height & 0x3FFF)
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return ImageFacts(
            media_type="image/webp", width=(bits & 0x3FFF) + 1, height=((bits >> 14) & 0x3FFF) + 1
        )
    if chunk == b"VP8X" and len(data) >= 30:
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return ImageFacts(media_type="image/webp", width=width, height=height)
    return None


def _jpeg(data: bytes) -> ImageFacts | None:
    """Walk the segments to the first start-of-frame, which holds the size."""
    at = 2
    end = len(data)
    while at + 4 <= end:
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in _STANDALONE:
            at += 2
            continue
        if marker == 0xDA:  # start of scan before any frame header
            return None
        length = int.from_bytes(data[at + 2 : at + 4], "big")
        if length < 2:
            return None
        if marker in _SOF:
            if at + 9 > end:
                return None
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return ImageFacts(media_type="image/jpeg", width=width, height=height)
        at += 2 + length
    return None


def image_content(raw: bytes) -> ImageContent | NotAnImage:
    """The image block for these bytes, labelled with the media type they really have, or why there is none."""
    facts = sniff(raw)
    if isinstance(facts, NotAnImage):
        return facts
    return ImageContent(media_type=facts.media_type, data=base64.b64encode(raw).decode("ascii"))


def decode_base64(data: str) -> bytes | NotAnImage:
    """The bytes of base64 image data (newlines allowed, as notebooks wrap it), or why it does not decode."""
    try:
        return base64.b64decode("".join(data.split()), validate=True)
    except (binascii.Error, ValueError):
        return NotAnImage("its data is not valid base64")
