"""Image limits (docs "Vision"): bytes as sent, pixels read from the PNG / JPEG / GIF / WebP header, and count.

- Size: 5 MB (5,242,880 bytes) of base64 text as sent, not the decoded bytes: the limit on Bedrock and Google Cloud,
  and the one real API responses name ("image exceeds 5 MB maximum"). The current docs give 10 MB when calling the
  Claude API directly; the server keeps the stricter figure (docs/testing.md, "Where the docs are silent" 6), so a notebook tested here runs on every platform, and `ScriptedServer(max_image_bytes=10 * 1024 * 1024)`
  gives the Claude API's own limit.
- Pixels: at most 8000 on either side; when a request holds more than 20 images (resent ones and those inside tool
  results count), at most 2000.
- Count: 600 per request, 100 on models with a 200k window.
"""

from __future__ import annotations

from typing import Any

from ...base.json_values import is_object
from .blocks import images_in
from .models import ServedModel
from .pixels import decoded_head, image_size
from .rejection import Rejection, invalid

MAX_IMAGE_BYTES = 5 * 1024 * 1024
MAX_PIXELS = 8000
MANY_IMAGES = 20
MANY_IMAGES_MAX_PIXELS = 2000


def check_images(
    body: dict[str, Any], row: ServedModel, *, max_bytes: int = MAX_IMAGE_BYTES
) -> Rejection | None:
    images = images_in(body)
    limit = 100 if row.context_window <= 200_000 else 600
    if len(images) > limit:
        return invalid(
            f"messages: too many images in this request: {len(images)} > {limit} maximum"
        )  # (ours)
    pixels = MANY_IMAGES_MAX_PIXELS if len(images) > MANY_IMAGES else MAX_PIXELS
    for path, block in images:
        source = block.get("source")
        if not is_object(source) or source.get("type") != "base64":
            continue  # a URL or a file id: the bytes are not in the request
        data = source.get("data")
        where = f"{path}.image.source.base64"
        if not isinstance(data, str):
            return invalid(f"{where}.data: Input should be a valid string")  # (our wording)
        if len(data) > max_bytes:
            megabytes = max_bytes // (1024 * 1024)
            # [OBS] `…image.source.base64: image exceeds 5 MB maximum: 6096280 bytes > 5242880 bytes`
            return invalid(
                f"{where}: image exceeds {megabytes} MB maximum: {len(data)} bytes > {max_bytes} bytes"
            )
        head = decoded_head(data)
        found = image_size(head) if head is not None else None
        if found is None:
            return invalid(f"{where}.data: Could not process image")  # (from real responses)
        media_type, width, height = found
        if source.get("media_type") != media_type:
            return invalid(  # (from real responses)
                f"{where}.data: The image was specified using the {source.get('media_type')} media type, but the "
                f"image appears to be a {media_type} image"
            )
        if max(width, height) > pixels:
            many = " for many-image requests" if pixels == MANY_IMAGES_MAX_PIXELS else ""
            # [OBS] `…image.source.base64.data: At least one of the image dimensions exceed max allowed size: 8000 pixels`
            return invalid(
                f"{where}.data: At least one of the image dimensions exceed max allowed size{many}: {pixels} pixels"
            )
    return None
