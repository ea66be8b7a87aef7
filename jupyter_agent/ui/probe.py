"""Is a widget frontend listening? A `jslink` echo through the pump: the browser copies a value from one
widget to another and syncs it back. nbclient/papermill never answer, so asks there become denials."""

from __future__ import annotations

import time

from .gate import show_widget, update_bundle, widgets
from .pump import ShellPump
from .widget_tree import close_tree


def widget_frontend_answers(pump: ShellPump, timeout: float) -> bool:
    """True when the echo comes back within `timeout` seconds (the `probe_timeout` setting)."""
    w = widgets()
    source = w.IntText(value=0, layout=w.Layout(display="none"))
    echo = w.IntText(value=0, layout=w.Layout(display="none"))
    link = w.Link((source, "value"), (echo, "value"))  # what `jslink` builds
    box = w.HBox([source, echo], layout=w.Layout(display="none"))
    display_id = show_widget(box)
    try:
        source.value = 1
        deadline = time.monotonic() + timeout
        while echo.value != 1 and time.monotonic() < deadline:
            pump.pump(0.05)
        return echo.value == 1
    finally:
        close_tree(link, box)
        update_bundle({"text/plain": ""}, display_id=display_id)
