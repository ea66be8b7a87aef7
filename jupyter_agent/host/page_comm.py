"""The kernel end of a comm the notebook page opened (`jupyter_agent.review`), and the one way a message goes
to it: through the display gate (`ui.gate.to_page`), so a review mark or an approval drawn at its cells shows
no secret known when it is sent — one registered after the run that read it included."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from ..ui.gate import to_page

log = logging.getLogger(__name__)


class PageComm(Protocol):
    """What the review needs of a comm the page opened (`comm.base_comm.BaseComm` has it)."""

    def send(self, data: dict[str, Any] | None = None) -> None: ...
    def on_msg(self, callback: Callable[[Mapping[str, Any]], None] | None) -> None: ...
    def on_close(self, callback: Callable[[Mapping[str, Any]], None] | None) -> None: ...


def send_to_page(page: PageComm, message: Mapping[str, Any]) -> None:
    """Send `message` masked; a page that went away meanwhile (its comm closed) costs the others nothing."""
    try:
        page.send(to_page(message))
    except Exception:
        log.debug("jupyter_agent: a page did not take %s", message.get("type"), exc_info=True)
