"""Which encoding a text file is in, decided the way its author's tools would: BOM, declaration, UTF-8, fallback.

1. A byte-order mark names the encoding (UTF-8, UTF-16, UTF-32).
2. A coding declaration in the first two lines names it: PEP 263 (`# -*- coding: cp1251 -*-`,
   `# coding=latin-1`), Emacs (`-*- coding: x -*-` in any comment syntax) or Vim (`vim: set fileencoding=x`).
   An unknown codec name is ignored.
3. Valid UTF-8 is UTF-8. So is text that is mostly UTF-8 with a few stray bytes (a Latin-1 comment pasted
   into a UTF-8 file): its multi-byte characters outnumber the bytes that do not decode, which stay as they
   are (`surrogateescape`).
4. Anything else is in the configured fallback (`AgentMagics.fallback_encoding`, default cp1252).

Decoding and encoding both use `surrogateescape`, so a byte the encoding does not define goes back unchanged.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from typing import Literal

from ...base.sandbox import DEFAULT_FALLBACK_ENCODING

#: How the encoding of a file was decided (said in errors, so the user knows what to change).
EncodingSource = Literal["bom", "declaration", "utf-8", "fallback", "new file"]

DEFAULT_FALLBACK = DEFAULT_FALLBACK_ENCODING

#: BOMs we recognise, longest first (the UTF-32 LE BOM starts with the UTF-16 LE one).
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
#: PEP 263's own pattern (a `#` comment), then Emacs' and Vim's, which work in any comment syntax.
_DECLARATIONS = (
    re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-_.a-zA-Z0-9]+)"),
    re.compile(rb"-\*-.*?coding:[ \t]*([-_.a-zA-Z0-9]+)"),
    re.compile(rb"\b(?:vim?|ex):.*?\b(?:fileencoding|fenc)=([-_.a-zA-Z0-9]+)"),
)
#: How much of a large file is looked at to decide (a streamed read does not hold the file).
SAMPLE_BYTES = 64 * 1024


@dataclass(frozen=True, kw_only=True)
class Detected:
    """The codec to use (Python's name for it), the BOM to skip and keep, and what decided it."""

    encoding: str
    bom: bytes
    source: EncodingSource
    #: The name as the file wrote it (a declaration) or as it was configured; for messages.
    label: str


def detect_bom(head: bytes) -> tuple[bytes, str] | None:
    for bom, encoding in _BOMS:
        if head.startswith(bom):
            return bom, encoding
    return None


def codec_name(name: str) -> str | None:
    """Python's canonical name for a codec (`windows-1251` → `cp1251`), None when there is no such codec."""
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def declared_encoding(data: bytes) -> tuple[str, str] | None:
    """(codec, as written) from a coding declaration in the first two lines, if it names a known codec."""
    for line in data.split(b"\n", 2)[:2]:
        for pattern in _DECLARATIONS:
            match = pattern.search(line)
            if match is None:
                continue
            written = match.group(1).decode("ascii")
            codec = codec_name(written)
            if codec is not None:
                return codec, written
    return None


def _mostly_utf8(sample: bytes) -> bool:
    """More multi-byte UTF-8 characters than bytes that do not decode: a UTF-8 file with a few stray bytes."""
    text = codecs.getincrementaldecoder("utf-8")("surrogateescape").decode(sample)
    stray = sum(1 for ch in text if "\udc80" <= ch <= "\udcff")
    multibyte = sum(1 for ch in text if ord(ch) > 0x7F) - stray
    return multibyte > stray


def detect(data: bytes, fallback: str = DEFAULT_FALLBACK, *, whole: bool = True) -> Detected:
    """How to decode `data` (the whole file, or with `whole=False` its first bytes only)."""
    found = detect_bom(data[:4])
    if found is not None:
        bom, encoding = found
        return Detected(encoding=encoding, bom=bom, source="bom", label=f"{encoding} (byte-order mark)")
    declared = declared_encoding(data[:1024])
    if declared is not None:
        codec, written = declared
        return Detected(encoding=codec, bom=b"", source="declaration", label=written)
    try:
        codecs.getincrementaldecoder("utf-8")().decode(data, final=whole)
    except UnicodeDecodeError:
        if _mostly_utf8(data if whole else data[:SAMPLE_BYTES]):
            return Detected(encoding="utf-8", bom=b"", source="utf-8", label="utf-8")
        return Detected(encoding=codec_name(fallback) or fallback, bom=b"", source="fallback", label=fallback)
    return Detected(encoding="utf-8", bom=b"", source="utf-8", label="utf-8")


def why(detected: Detected) -> str:
    """How the encoding was decided, for an error message."""
    if detected.source == "bom":
        return "its byte-order mark says so"
    if detected.source == "declaration":
        return f"its coding declaration says {detected.label}"
    if detected.source == "fallback":
        return (
            f"it has no byte-order mark or coding declaration and is not UTF-8, so it was read as "
            f"{detected.label} (the fallback_encoding setting)"
        )
    return "it is UTF-8"
