"""Where the UI's output goes: IPython displays (updatable by id) or, in a terminal, plain prints.

Everything the agent displays passes here, so this is where secrets are masked for people and for the saved
notebook (`masking.mask` on every text of every bundle), and where terminal text gets its control
characters escaped.
"""

from __future__ import annotations

import sys
import unicodedata
import uuid
from typing import Protocol

from ..masking import mask
from .jupyter_api import display, update_display

Bundle = dict[str, str]


def masked(bundle: Bundle) -> Bundle:
    """The bundle with every known secret replaced by `[redacted: NAME]` in each of its representations."""
    return {mime: mask(text) for mime, text in bundle.items()}


def visible(text: str) -> str:
    """Text for a terminal with every control character shown as an escape (`\\x1b`, `\\r`, `\\b`), keeping
    newlines and tabs: an ANSI sequence or a carriage return must not hide or rewrite what is shown."""
    return "".join(
        ch if ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cf", "Zl", "Zp") else _escaped(ch)
        for ch in text
    )


def _escaped(ch: str) -> str:
    shown = repr(ch)[1:-1]  # cut-ok: the quotes around one character
    return shown if shown != ch else f"\\u{ord(ch):04x}"


class Publisher(Protocol):
    def show(self, bundle: Bundle, *, final: bool = False) -> str: ...
    def update(self, display_id: str, bundle: Bundle, *, final: bool = False) -> None: ...
    def stream_text(self, text: str) -> bool:
        """Print streamed model text directly; False when text goes through show/update instead."""
        ...


class DisplayPublisher:
    """Jupyter frontends: one display per element, updated in place through its display id."""

    def show(self, bundle: Bundle, *, final: bool = False) -> str:
        display_id = uuid.uuid4().hex
        display(masked(bundle), raw=True, display_id=display_id)
        return display_id

    def update(self, display_id: str, bundle: Bundle, *, final: bool = False) -> None:
        update_display(masked(bundle), display_id=display_id)

    def stream_text(self, text: str) -> bool:
        return False


class TerminalPublisher:
    """Terminal IPython: text streams to stdout as it comes; other elements print once, when final."""

    def show(self, bundle: Bundle, *, final: bool = False) -> str:
        display_id = uuid.uuid4().hex
        if final:
            self.update(display_id, bundle, final=True)
        return display_id

    def update(self, display_id: str, bundle: Bundle, *, final: bool = False) -> None:
        if final:
            print(visible(mask(bundle.get("text/plain", ""))), file=sys.stdout, flush=True)

    def stream_text(self, text: str) -> bool:
        sys.stdout.write(visible(mask(text)))
        sys.stdout.flush()
        return True
