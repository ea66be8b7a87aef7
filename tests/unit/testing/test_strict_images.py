"""Image limits: base64 size as sent, pixels from the PNG / JPEG / GIF / WebP header, and images per request."""

from __future__ import annotations

import base64
import struct
from typing import Any

import pytest

from jupyter_agent.testing.strict.images import image_size

INVALID = "invalid_request_error"


def png(width: int, height: int, padding: int = 0) -> bytes:
    ihdr = struct.pack(">II", width, height) + b"\x08\x06\x00\x00\x00"
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + b"\x00" * (4 + padding)


def jpeg(width: int, height: int) -> bytes:
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00" + b"\x00" * 9
    sof0 = b"\xff\xc0" + struct.pack(">HBHH", 17, 8, height, width) + b"\x03" + b"\x00" * 9
    return b"\xff\xd8" + app0 + sof0 + b"\xff\xd9"


def gif(width: int, height: int) -> bytes:
    return b"GIF89a" + struct.pack("<HH", width, height) + b"\x00" * 8


def webp(width: int, height: int) -> bytes:
    extended = b"\x00\x00\x00\x00" + (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    return b"RIFF" + struct.pack("<I", 30) + b"WEBP" + b"VP8X" + struct.pack("<I", 10) + extended


def image(data: bytes, media_type: str = "image/png") -> dict[str, Any]:
    encoded = base64.b64encode(data).decode()
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": encoded}}


def asking(*images: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [*images, {"type": "text", "text": "What is in it?"}]}]


@pytest.mark.parametrize(
    ("data", "found"),
    [
        (png(640, 480), ("image/png", 640, 480)),
        (jpeg(1024, 768), ("image/jpeg", 1024, 768)),
        (gif(32, 16), ("image/gif", 32, 16)),
        (webp(9000, 10), ("image/webp", 9000, 10)),
    ],
)
def test_the_size_comes_from_each_formats_header(data: bytes, found: tuple[str, int, int]) -> None:
    assert image_size(data) == found


def test_an_image_over_the_base64_size_limit(api: Any) -> None:
    big = png(1000, 1000, padding=7_900_000)  # 7.9 MB of bytes, 10.5 MB of base64
    status, kind, message = api(max_image_bytes=10 * 1024 * 1024).rejection(messages=asking(image(big)))
    encoded = len(base64.b64encode(big))
    assert (status, kind, message) == (
        400,
        INVALID,
        f"messages.0.content.0.image.source.base64: image exceeds 10 MB maximum: {encoded} bytes > 10485760 bytes",
    )


def test_the_limit_is_5_mb_of_base64_text_not_of_decoded_bytes(api: Any) -> None:
    four_and_a_half_mb = png(1000, 1000, padding=4_500_000)  # 6 MB as base64
    encoded = len(base64.b64encode(four_and_a_half_mb))
    assert api().rejection(messages=asking(image(four_and_a_half_mb))) == (
        400,
        INVALID,
        f"messages.0.content.0.image.source.base64: image exceeds 5 MB maximum: {encoded} bytes > 5242880 bytes",
    )
    three_and_a_half_mb = png(1000, 1000, padding=3_500_000)  # 4.7 MB as base64
    assert api().create(messages=asking(image(three_and_a_half_mb))).content[0].text == "ok"
    claude_api = api(max_image_bytes=10 * 1024 * 1024)  # the current docs' figure for the Claude API itself
    assert claude_api.create(messages=asking(image(four_and_a_half_mb))).content[0].text == "ok"


@pytest.mark.parametrize("data", [png(8001, 600), jpeg(600, 8001), gif(8001, 1), webp(8001, 8001)])
def test_an_image_over_8000_pixels_on_a_side(api: Any, data: bytes) -> None:
    found = image_size(data)
    assert found is not None
    media_type = found[0]
    assert api().rejection(messages=asking(image(data, media_type))) == (
        400,
        INVALID,
        "messages.0.content.0.image.source.base64.data: At least one of the image dimensions exceed max allowed "
        "size: 8000 pixels",
    )


def test_more_than_20_images_may_be_at_most_2000_pixels(api: Any) -> None:
    small = [image(png(100, 100)) for _ in range(20)]
    status, _, message = api().rejection(messages=asking(*small, image(png(2001, 100))))
    assert status == 400
    assert message == (
        "messages.0.content.20.image.source.base64.data: At least one of the image dimensions exceed max allowed "
        "size for many-image requests: 2000 pixels"
    )
    assert api().create(messages=asking(*small[:19], image(png(2001, 100)))).content[0].text == "ok"


def test_images_in_tool_results_count_and_are_checked(api: Any) -> None:
    messages = [
        {"role": "user", "content": "show me"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "Shot", "input": {}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [image(png(9000, 9))]}],
        },
    ]
    tools = [{"name": "Shot", "input_schema": {"type": "object"}}]
    message = api().rejection(messages=messages, tools=tools)[2]
    assert message.startswith(
        "messages.2.content.0.tool_result.content.0.image.source.base64.data: At least one"
    )


def test_more_than_100_images_on_a_200k_model(api: Any) -> None:
    many = [image(png(10, 10)) for _ in range(101)]
    assert api().rejection(model="claude-haiku-4-5", messages=asking(*many)) == (
        400,
        INVALID,
        "messages: too many images in this request: 101 > 100 maximum",
    )


def test_a_media_type_that_does_not_match_the_bytes(api: Any) -> None:
    message = api().rejection(messages=asking(image(png(10, 10), "image/jpeg")))[2]
    assert message == (
        "messages.0.content.0.image.source.base64.data: The image was specified using the image/jpeg media type, "
        "but the image appears to be a image/png image"
    )
