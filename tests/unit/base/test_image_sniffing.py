"""`base.images.sniff`: an image is what its bytes say, with a size its header gives, or a reason it is not."""

from __future__ import annotations

import base64
import struct
from pathlib import Path

import pytest

from jupyter_agent.agent.boundary import valid_for_model
from jupyter_agent.base.images import ImageFacts, NotAnImage, sniff

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real"
PIXEL_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def png(width: int, height: int) -> bytes:
    return (
        b"\x89PNG\r\n\x1a\n"
        + struct.pack(">I", 13)
        + b"IHDR"
        + struct.pack(">II", width, height)
        + b"\x08\x06\0\0\0"
    )


def jpeg(width: int, height: int, *, app_bytes: int = 16) -> bytes:
    app0 = b"\xff\xe0" + struct.pack(">H", app_bytes + 2) + b"J" * app_bytes
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + app0 + sof + b"\xff\xda"


def webp_lossy(width: int, height: int) -> bytes:
    frame = b"\x9d\x01\x2a" + struct.pack("<HH", width, height)
    chunk = b"VP8 " + struct.pack("<I", 10) + b"\0\0\0" + frame
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk


def webp_lossless(width: int, height: int) -> bytes:
    bits = (width - 1) | ((height - 1) << 14)
    chunk = b"VP8L" + struct.pack("<I", 5) + b"\x2f" + bits.to_bytes(4, "little")
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk


def webp_extended(width: int, height: int) -> bytes:
    chunk = b"VP8X" + struct.pack("<I", 10) + b"\0\0\0\0" + (width - 1).to_bytes(3, "little")
    return b"RIFF" + struct.pack("<I", 22) + b"WEBP" + chunk + (height - 1).to_bytes(3, "little")


@pytest.mark.parametrize(
    ("data", "facts"),
    [
        pytest.param(PIXEL_PNG, ImageFacts(media_type="image/png", width=1, height=1), id="a real 1x1 PNG"),
        pytest.param(
            png(640, 480), ImageFacts(media_type="image/png", width=640, height=480), id="PNG header"
        ),
        pytest.param(jpeg(500, 373), ImageFacts(media_type="image/jpeg", width=500, height=373), id="JPEG"),
        pytest.param(
            jpeg(20, 10, app_bytes=60_000),
            ImageFacts(media_type="image/jpeg", width=20, height=10),
            id="JPEG whose frame header follows a large APP segment",
        ),
        pytest.param(
            b"GIF89a" + struct.pack("<HH", 7, 9) + b"\0" * 4,
            ImageFacts(media_type="image/gif", width=7, height=9),
            id="GIF",
        ),
        pytest.param(
            webp_lossy(33, 44), ImageFacts(media_type="image/webp", width=33, height=44), id="WebP VP8"
        ),
        pytest.param(
            webp_lossless(5, 6), ImageFacts(media_type="image/webp", width=5, height=6), id="WebP VP8L"
        ),
        pytest.param(
            webp_extended(1000, 2000),
            ImageFacts(media_type="image/webp", width=1000, height=2000),
            id="WebP VP8X",
        ),
    ],
)
def test_real_image_headers_give_format_and_size(data: bytes, facts: ImageFacts) -> None:
    assert sniff(data) == facts


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        pytest.param(b"", "it is empty (0 bytes)", id="empty"),
        pytest.param(
            b"hello", "its 5 bytes are not a PNG, JPEG, GIF or WebP image (they start b'hello')", id="text"
        ),
        pytest.param(
            b"\x89PNG\r\n\x1a\n",
            "its 8 bytes start like an image but its header is cut or broken",
            id="a PNG signature alone",
        ),
        pytest.param(
            b"\xff\xd8\xff\xe0\0\x10",
            "its 6 bytes start like an image but its header is cut or broken",
            id="cut JPEG",
        ),
        pytest.param(png(0, 10), "its header gives a size of 0×10 pixels", id="zero width"),
        pytest.param(
            png(8001, 10),
            "it is 8001×10 pixels, over the 8000-pixel side the model accepts",
            id="too large a side",
        ),
        pytest.param(
            b"\xff\xd8\xff\xda" + b"\0" * 10,
            "its 14 bytes start like an image but its header is cut or broken",
            id="JPEG scan before any frame header",
        ),
    ],
)
def test_bytes_that_are_no_readable_image_say_why(data: bytes, reason: str) -> None:
    assert sniff(data) == NotAnImage(reason)


def test_the_boundary_leaves_text_and_real_images_untouched_and_returns_the_same_objects() -> None:
    block = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": base64.b64encode(PIXEL_PNG).decode()},
    }
    message = {"role": "user", "content": [{"type": "text", "text": "naïve ✓"}, block]}
    assert valid_for_model(message) is message


def test_the_boundary_leaves_url_images_to_the_api() -> None:
    block = {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}
    assert valid_for_model(block) is block
