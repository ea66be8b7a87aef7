"""Where the UI's output goes: IPython displays (updatable by id) or, in a terminal, plain prints.

Both hand every bundle and every line to `ui.gate`, which masks it (and escapes a terminal's control characters).
"""

from __future__ import annotations

from typing import Protocol

from .gate import Bundle, new_display_id, say, show_bundle, stream, update_bundle


class Publisher(Protocol):
    def show(self, bundle: Bundle, *, final: bool = False) -> str: ...
    def update(self, display_id: str, bundle: Bundle, *, final: bool = False) -> None: ...
    def stream_text(self, text: str) -> bool:
        """Print streamed model text directly; False when text goes through show/update instead."""
        ...


class DisplayPublisher:
    """Jupyter frontends: one display per element, updated in place through its display id."""

    def show(self, bundle: Bundle, *, final: bool = False) -> str:
        return show_bundle(bundle)

    def update(self, display_id: str, bundle: Bundle, *, final: bool = False) -> None:
        update_bundle(bundle, display_id=display_id)

    def stream_text(self, text: str) -> bool:
        return False


class TerminalPublisher:
    """Terminal IPython: text streams to stdout as it comes; other elements print once, when final."""

    def show(self, bundle: Bundle, *, final: bool = False) -> str:
        display_id = new_display_id()
        if final:
            self.update(display_id, bundle, final=True)
        return display_id

    def update(self, display_id: str, bundle: Bundle, *, final: bool = False) -> None:
        if final:
            say(bundle.get("text/plain", ""))

    def stream_text(self, text: str) -> bool:
        stream(text)
        return True
