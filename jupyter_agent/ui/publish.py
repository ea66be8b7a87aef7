"""Where the UI's output goes: IPython displays (updatable by id) or, in a terminal, plain prints."""

from __future__ import annotations

import sys
import uuid
from typing import Protocol

Bundle = dict[str, str]


class Publisher(Protocol):
    def show(self, bundle: Bundle, *, final: bool = False) -> str: ...
    def update(self, display_id: str, bundle: Bundle, *, final: bool = False) -> None: ...
    def stream_text(self, text: str) -> bool:
        """Print streamed model text directly; False when text goes through show/update instead."""
        ...


class DisplayPublisher:
    """Jupyter frontends: one display per element, updated in place through its display id."""

    def show(self, bundle: Bundle, *, final: bool = False) -> str:
        from IPython.display import display

        display_id = uuid.uuid4().hex
        display(bundle, raw=True, display_id=display_id)
        return display_id

    def update(self, display_id: str, bundle: Bundle, *, final: bool = False) -> None:
        from IPython.display import update_display

        update_display(bundle, raw=True, display_id=display_id)

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
            print(bundle.get("text/plain", ""), file=sys.stdout, flush=True)

    def stream_text(self, text: str) -> bool:
        sys.stdout.write(text)
        sys.stdout.flush()
        return True
