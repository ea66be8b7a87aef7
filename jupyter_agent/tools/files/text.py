"""Decode a file's bytes so an edit can put them back exactly: encoding, byte-order mark and line endings kept.

Unknown bytes in a UTF-8 file survive the round trip through `surrogateescape`, so a Latin-1 comment in
an otherwise UTF-8 file is not "fixed" by an unrelated edit.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from typing import Literal

from ...base.sandbox import looks_binary

Eol = Literal["\n", "\r\n"]

#: BOMs we recognise, longest first (the UTF-32 LE BOM starts with the UTF-16 LE one).
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_SAMPLE = 8192


@dataclass(frozen=True, kw_only=True)
class TextDoc:
    """A decoded text file: `text` keeps the file's own line endings; `encode` gives the bytes back."""

    text: str
    encoding: str
    bom: bytes = b""

    @property
    def eol(self) -> Eol:
        return dominant_eol(self.text)

    def encode(self, text: str) -> bytes:
        return self.bom + text.encode(self.encoding, _errors(self.encoding))


def _errors(encoding: str) -> str:
    return "surrogateescape" if encoding == "utf-8" else "strict"


def detect_bom(head: bytes) -> tuple[bytes, str] | None:
    for bom, encoding in _BOMS:
        if head.startswith(bom):
            return bom, encoding
    return None


def is_binary(data: bytes) -> bool:
    """Binary unless a BOM says which text encoding it is (UTF-16 text is full of NUL bytes)."""
    return detect_bom(data[:4]) is None and looks_binary(data[:_SAMPLE])


def decode(data: bytes) -> TextDoc:
    """Decode with the BOM's encoding, else UTF-8 (undecodable bytes kept as surrogates)."""
    found = detect_bom(data[:4])
    if found is None:
        return TextDoc(text=data.decode("utf-8", "surrogateescape"), encoding="utf-8")
    bom, encoding = found
    return TextDoc(text=data[len(bom) :].decode(encoding, "replace"), encoding=encoding, bom=bom)


def stream_encoding(head: bytes) -> tuple[str, int]:
    """The encoding to read a file with and how many bytes of BOM to skip, from its first bytes."""
    found = detect_bom(head)
    if found is None:
        return "utf-8", 0
    bom, encoding = found
    return encoding, len(bom)


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
