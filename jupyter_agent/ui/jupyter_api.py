"""The IPython display and ipywidgets calls the UI makes, typed in one place.

Neither library annotates these parameters (`Button.on_click(callback)`, `display(*objs, display_id=None)`),
so every call would leave a checker with unknown types. The widget helpers take the small protocols below,
which ipywidgets' classes satisfy; the display helpers import `IPython.display` on first use, as the
package always has (importing `jupyter_agent` stays cheap). Only `gate` calls the display helpers: it masks
what they show.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, cast


class Clickable(Protocol):
    """A widget with click callbacks (`ipywidgets.Button`)."""

    def on_click(self, callback: Callable[[Any], None], /) -> None: ...


class Submittable(Protocol):
    """A text field whose frontend sends a `submit` event on Enter (`ipywidgets.Text`)."""

    def on_msg(self, callback: Callable[[Any, Any, Any], None], /) -> None: ...


class Styled(Protocol):
    """A widget that takes CSS classes (any `ipywidgets.DOMWidget`)."""

    def add_class(self, name: str, /) -> object: ...


def on_click(button: Clickable, callback: Callable[[Any], None]) -> None:
    """Call `callback(button)` on each click."""
    button.on_click(callback)


def on_submit(field: Submittable, callback: Callable[[Any], None]) -> None:
    """Call `callback(field)` when the user presses Enter in the field, and only then.

    Listens for the `submit` event the field's view sends on Enter, as ipywidgets' `Text.on_submit` did: that
    method is deprecated, and its advice (`continuous_update=False`, observe `value`) also fires when the field
    loses focus, so typing a message and then clicking Allow once would send the message as a denial.
    """

    def on_message(_widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and cast(dict[str, Any], content).get("event") == "submit":
            callback(field)

    field.on_msg(on_message)


def add_class(widget: Styled, name: str) -> None:
    """Add the CSS class `name` to the widget (the labextension's stylesheet targets it)."""
    widget.add_class(name)


def widget_bundle(widget: Any) -> dict[str, Any]:
    """The mime bundle IPython would show for an ipywidget: its view, and a text/plain repr to replace."""
    bundle: object = widget._repr_mimebundle_()
    return dict(cast(dict[str, Any], bundle or {}))


def display(obj: object, *, raw: bool = False, display_id: str | None = None) -> None:
    """Show `obj` (with `raw`, a mime bundle as it is) under `display_id`, to be updated later."""
    # IPython leaves most of display()'s parameters unannotated; the wrapper's signature is the typed one.
    from IPython.display import display as ipython_display  # pyright: ignore[reportUnknownVariableType]

    ipython_display(obj, raw=raw, display_id=display_id)


def update_display(bundle: Mapping[str, Any], *, display_id: str) -> None:
    """Replace what `display_id` shows with the mime bundle, as it is."""
    # IPython leaves `obj` and `display_id` unannotated; the wrapper's signature is the typed one.
    from IPython.display import update_display as ipython_update  # pyright: ignore[reportUnknownVariableType]

    ipython_update(bundle, raw=True, display_id=display_id)


def offer_next_input(text: str) -> None:
    """IPython's `set_next_input` payload: the frontend puts `text` into a new cell below the running one when
    it finishes (VS Code, JupyterLab); one per execution — a second call replaces the first."""
    from IPython.core.getipython import get_ipython

    shell = get_ipython()
    if shell is not None:
        shell.set_next_input(text, replace=False)
