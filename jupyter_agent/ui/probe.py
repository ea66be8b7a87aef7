"""Is a widget frontend listening? A `jslink` echo through the pump: the browser copies a value from one
widget to another and syncs it back. nbclient/papermill never answer, so asks there become denials."""

from __future__ import annotations

import time

from .jupyter_api import display_with_handle
from .pump import ShellPump
from .widget_tree import close_tree


def widget_frontend_answers(pump: ShellPump, timeout: float) -> bool:
    """True when the echo comes back within `timeout` seconds (the `probe_timeout` setting)."""
    import ipywidgets as w
    from ipywidgets.widgets.widget_link import Link

    source = w.IntText(value=0, layout=w.Layout(display="none"))
    echo = w.IntText(value=0, layout=w.Layout(display="none"))
    link = Link((source, "value"), (echo, "value"))  # what `w.jslink` builds, with its type
    box = w.HBox([source, echo], layout=w.Layout(display="none"))
    handle = display_with_handle(box)
    try:
        source.value = 1
        deadline = time.monotonic() + timeout
        while echo.value != 1 and time.monotonic() < deadline:
            pump.pump(0.05)
        return echo.value == 1
    finally:
        close_tree(link, box)
        if handle is not None:
            handle.update({"text/plain": ""}, raw=True)
