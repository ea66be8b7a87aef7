"""Decode a file's bytes so an edit can put them back exactly: encoding, byte-order mark and line endings kept.

The encoding is decided once, by `encoding.detect` (BOM, coding declaration, UTF-8, the configured fallback),
and the file is written back in it. Bytes the encoding does not define survive the round trip through
`surrogateescape`, so a stray Latin-1 byte in a UTF-8 file is not "fixed" by an unrelated edit. A character
the file's encoding cannot hold is an INVALID_ARGS error that says so, never a silent switch to UTF-8.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ...base.errors import ToolError
from ...base.sandbox import looks_binary
from .encoding import DEFAULT_FALLBACK, Detected, EncodingSource, declared_encoding, detect, detect_bom, why

Eol = Literal["\n", "\r\n"]

_SAMPLE = 8192


@dataclass(frozen=True, kw_only=True)
class TextDoc:
    """A decoded text file: `text` keeps the file's own line endings; `encode` gives the bytes back."""

    text: str
    encoding: str = "utf-8"
    bom: bytes = b""
    source: EncodingSource = "new file"
    #: The encoding's name as the file declared it or the setting named it (for messages).
    label: str = "utf-8"

    @property
    def eol(self) -> Eol:
        return dominant_eol(self.text)

    def encode(self, text: str, *, shown: str) -> bytes:
        """`text` in the file's encoding (or the one a coding declaration in `text` now names); a character
        that encoding cannot hold is INVALID_ARGS naming it, the line and what to do."""
        target = self._target(text)
        try:
            return target.bom + text.encode(target.encoding, "surrogateescape")
        except UnicodeEncodeError as exc:
            raise _unencodable(target, text, exc, shown) from None

    def _target(self, text: str) -> TextDoc:
        """A coding declaration the new text makes (or changes) decides, unless a BOM does: that is how a
        file is converted — change its declaration in the same edit."""
        if self.bom:
            return self
        declared = declared_encoding(text[:1024].encode("ascii", "replace"))
        if declared is None or declared[0] == self.encoding:
            return self
        codec, written = declared
        return TextDoc(text=text, encoding=codec, source="declaration", label=written)


def _unencodable(doc: TextDoc, text: str, exc: UnicodeEncodeError, shown: str) -> ToolError:
    char = text[exc.start]
    line = text.count("\n", 0, exc.start) + 1
    detected = Detected(encoding=doc.encoding, bom=doc.bom, source=doc.source, label=doc.label)
    if doc.source == "fallback":
        fix = (
            f"use characters {doc.label} has; if the file is in another encoding, set "
            "`%config AgentMagics.fallback_encoding = '...'` or add a coding declaration to its first line"
        )
    elif doc.source == "declaration":
        fix = (
            f"use characters {doc.label} has, or convert the file by changing its coding declaration to utf-8 "
            "in the same edit"
        )
    else:
        fix = f"use characters {doc.label} has"
    return ToolError(
        "INVALID_ARGS",
        f"'{shown}' is written in {doc.label} ({why(detected)}), which cannot hold {char!r} "
        f"(U+{ord(char):04X}) at line {line} of the new text; nothing was written. To fix: {fix}",
    )


def is_binary(data: bytes) -> bool:
    """Binary unless a BOM says which text encoding it is (UTF-16 text is full of NUL bytes)."""
    return detect_bom(data[:4]) is None and looks_binary(data[:_SAMPLE])


def decode(data: bytes, fallback: str = DEFAULT_FALLBACK) -> TextDoc:
    """Decode in the encoding `encoding.detect` finds; undecodable bytes are kept as surrogates."""
    found = detect(data, fallback)
    text = data[len(found.bom) :].decode(found.encoding, "surrogateescape")
    return TextDoc(text=text, encoding=found.encoding, bom=found.bom, source=found.source, label=found.label)


def dominant_eol(text: str) -> Eol:
    """CRLF when most line breaks are CRLF; LF otherwise (and for text without line breaks)."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf * 2 >= text.count("\n") else "\n"


def normalize_eol(text: str) -> str:
    return text.replace("\r\n", "\n")


def with_eol(text: str, eol: Eol) -> str:
    """`text` with every line break (CRLF or LF) written as `eol`."""
    normal = normalize_eol(text)
    return normal if eol == "\n" else normal.replace("\n", "\r\n")


def display(text: str) -> str:
    """Surrogate-escaped bytes shown as U+FFFD, so the text can be sent as JSON."""
    if not _has_surrogates(text):
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
