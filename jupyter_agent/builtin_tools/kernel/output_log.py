"""Everything a piece of code printed or displayed, in order, with bounded memory.

stdout, stderr and the text of rich outputs go into one log (a cell shows them interleaved, and the order
is what explains an error); images are kept aside, up to a count and a size. A runaway print loop keeps the
first and the last part of the text and counts what was dropped in between: one cut, at line boundaries, whose
marker says how to see the rest. The log's text fits `max_chars`, marker included, so nothing cuts it again.
"""

from __future__ import annotations

import io
import re
from typing import Any

from ...base.images import NotAnImage, decode_base64, image_content
from ...base.result import ImageContent

IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
MAX_IMAGES = 4
_CARRIAGE = re.compile(r"[^\n]*\r(?!\n)")


class OutputLog:
    def __init__(self, *, max_chars: int, max_image_bytes: int) -> None:
        self.half = max((max_chars - len(_marker(10**9, 10**9))) // 2, 500)
        self.head: list[str] = []
        self.head_len = 0
        self.tail = ""
        self.dropped = 0
        self.dropped_lines = 0
        self.max_image_bytes = max_image_bytes
        self.images: list[ImageContent] = []
        self.image_notes = 0

    def write(self, text: str, stream: str = "stdout") -> None:
        """Append text; `stream` names where the code wrote it (one log for the model, whatever the stream)."""
        room = self.half - self.head_len
        if room > 0:
            self.head.append(text[:room])
            self.head_len += min(len(text), room)
            text = text[room:]
        if text:
            self.tail += text
            excess = len(self.tail) - self.half
            if excess > 0:
                self.dropped += excess
                self.dropped_lines += self.tail.count("\n", 0, excess)
                self.tail = self.tail[excess:]

    def display(self, data: dict[str, Any], *, label: str = "") -> None:
        """A display_data / execute_result bundle: its text, and its image if any."""
        image_type = next((t for t in IMAGE_TYPES if t in data), None)
        text = data.get("text/plain")
        parts = [label] if label else []
        if isinstance(text, str) and text:
            parts.append(text)
        elif image_type is None:
            kinds = ", ".join(sorted(data)) or "nothing"
            parts.append(f"[rich output with no text form: {kinds}]")
        if image_type is not None:
            parts.append(self._keep_image(image_type, data[image_type]))
        line = "\n".join(parts) if any("\n" in part for part in parts) else " ".join(parts)
        self.write(line if line.endswith("\n") else line + "\n")

    def _keep_image(self, media_type: str, payload: Any) -> str:
        raw = payload if isinstance(payload, bytes) else decode_base64(str(payload))
        if isinstance(raw, NotAnImage):
            return f"[{media_type} not attached: {raw.reason}]"
        if len(self.images) >= MAX_IMAGES:
            return f"[{media_type} not attached: only the first {MAX_IMAGES} images are]"
        if len(raw) > self.max_image_bytes:
            return (
                f"[{media_type} of {len(raw)} bytes not attached: over the {self.max_image_bytes}-byte cap]"
            )
        image = image_content(raw)
        if isinstance(image, NotAnImage):
            return f"[{media_type} not attached: {image.reason}]"
        self.images.append(image)
        return f"[{image.media_type} attached as image {len(self.images)}]"

    def text(self) -> str:
        head, tail = "".join(self.head), self.tail
        if not self.dropped:
            return _clean(head + tail)
        # The cut falls between lines: the head's unfinished last line and the tail's first part-line go with it.
        end = head.rfind("\n") + 1 or len(head)  # one line longer than the head is cut inside it
        first = tail.find("\n")
        start = first + 1 if 0 <= first < len(tail) - 1 else 0  # ... and so is the tail of one such line
        chars = self.dropped + len(head) - end + start
        lines = self.dropped_lines + head.count("\n", end) + tail.count("\n", 0, start)
        return _clean(head[:end] + _marker(lines, chars) + tail[start:])


def _clean(text: str) -> str:
    return _CARRIAGE.sub("", text.replace("\r\n", "\n"))


def _marker(lines: int, chars: int) -> str:
    return (
        f"… [{lines} lines ({chars} characters) of output cut here; to see them, print a smaller part: a slice, "
        "head() or tail(), or write it to a file and Read it with offset and limit] …\n"
    )


class LogStream(io.TextIOBase):
    """A file-like stand-in for sys.stdout / sys.stderr that writes into an OutputLog."""

    def __init__(self, log: OutputLog, name: str) -> None:
        super().__init__()
        self.log = log
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.log.write(str(text), self._name)
        return len(text)

    def isatty(self) -> bool:
        return False
