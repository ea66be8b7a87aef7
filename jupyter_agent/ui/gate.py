"""The one gate between the agent and what a person sees: every display bundle, every widget and every line
printed to a terminal is masked here, so no card, view or question has to remember to.

- Bundles: `show_bundle` and `update_bundle` mask every representation before IPython gets it; `show_widget` shows a
  widget with a text for what shows no widgets.
- Widgets: `widgets()` holds the ipywidgets classes the UI may build (`WIDGET_KINDS`), each a subclass whose
  `get_state` masks every string of its state — labels, tooltips, placeholders, HTML values, options, titles
  — as built and after any later assignment, because `get_state` is the only way a widget's state leaves the
  kernel (the comm's open and updates, the widget state saved in the notebook); its repr (the text/plain
  IPython shows for it) is masked too. `tests/unit/ui/test_display_gate.py` keeps every other module from
  building a widget or displaying anything itself.
- Pages: `to_page` masks a comm message to the notebook page (an approval drawn at its cells).
- Terminal: `say` and `stream` mask the text and escape its control characters.

- Markdown: `markdown_to_html` masks it before it is rendered (`html.render_markdown`): emphasis can split a
  secret into pieces too short to recognise.
"""

from __future__ import annotations

import sys
import types
import unicodedata
import uuid
from collections.abc import Mapping
from functools import cache
from html import escape as html_escape
from typing import Any

from ..masking import mask, mask_data
from .html import fold_point, level_headings, render_markdown
from .jupyter_api import display, update_display, widget_bundle

Bundle = dict[str, str]

#: The ipywidgets classes the UI builds (the `ipywidgets` names; `Link` is `jslink`'s class). A new kind of
#: widget is one name here.
WIDGET_KINDS = ("Button", "HBox", "HTML", "IntText", "Layout", "Link", "Text", "VBox")


def masked(bundle: Mapping[str, Any]) -> dict[str, Any]:
    """The bundle with every known secret replaced by `[redacted: NAME]` in each of its representations."""
    return {mime: mask_data(value) for mime, value in bundle.items()}


def show_bundle(bundle: Mapping[str, Any], *, display_id: str | None = None) -> str:
    """Display the bundle, masked, under `display_id` (a new one when None); the id, to `update_bundle` it later."""
    display_id = display_id or new_display_id()
    display(masked(bundle), raw=True, display_id=display_id)
    return display_id


def new_display_id() -> str:
    return uuid.uuid4().hex


def update_bundle(bundle: Mapping[str, Any], *, display_id: str) -> None:
    """Replace what `display_id` shows with the bundle, masked."""
    update_display(masked(bundle), display_id=display_id)


#: Marks a widget's display as the agent's: its text/plain and text/html are a static rendering that stays true once
#: the widget is gone, so the labextension may drop the widget view of a model no kernel holds any more (after a
#: restart, or a page reloaded against a new kernel) and show that instead of "Error displaying widget".
STATIC_MIME = "application/vnd.jupyter-agent.static+json"


def show_widget(
    widget: Any,
    *,
    text: str | None = None,
    html: str | None = None,
    display_id: str | None = None,
    in_place: bool = False,
) -> str:
    """Display a widget built from `widgets()` under `display_id` (a new one when None), with a static rendering
    for what shows no live widget (nbconvert, GitHub, a restarted kernel): `text` as its text/plain and `html`
    (or the text, escaped) as its text/html. The display id, to `update_bundle` it later (a record, a frozen
    review, or nothing). `in_place`: replace what `display_id` already shows (a slot made earlier) instead."""
    bundle = widget_bundle(widget)
    if text is not None:
        bundle["text/plain"] = text
    plain = str(bundle.get("text/plain", ""))
    bundle["text/html"] = html if html is not None else static_html(plain)
    bundle[STATIC_MIME] = {"model_id": str(getattr(widget, "model_id", "") or "")}
    if in_place and display_id is not None:
        update_bundle(bundle, display_id=display_id)
        return display_id
    return show_bundle(bundle, display_id=display_id)


def static_html(text: str) -> str:
    """Plain text as the static HTML of a widget's display."""
    return (
        f'<div class="jp-agent-static" style="white-space:pre-wrap;font-size:12px;">{html_escape(text)}</div>'
    )


def to_page(message: Mapping[str, Any]) -> dict[str, Any]:
    """A comm message for the notebook page (an approval drawn at its cells), every string masked."""
    return dict(mask_data(message))


def markdown_to_html(text: str) -> str:
    """Model Markdown as safe HTML, masked before it is rendered, its headings from h2 on without a skipped level."""
    return level_headings(render_markdown(mask(text)))


def folded_markdown_html(text: str) -> str:
    """The answer as HTML, masked, a long one folded after a screenful with "show all" (`html.fold_point`)."""
    at = fold_point(text)
    if at is None:
        return markdown_to_html(text)
    rest = text[at:]
    more = len(rest.strip().splitlines())
    return level_headings(  # one outline across the fold
        f"{render_markdown(mask(text[:at]))}"
        f'<details class="jp-agent-more"><summary style="cursor:pointer;">show all ({more:,} more lines)</summary>'
        f"{render_markdown(mask(rest))}</details>"
    )


def say(text: str) -> None:
    """Print a line to the terminal, masked, with its control characters shown as escapes."""
    print(visible(mask(text)), file=sys.stdout, flush=True)


def stream(text: str) -> None:
    """Write streamed text to the terminal as it comes, masked and escaped."""
    sys.stdout.write(visible(mask(text)))
    sys.stdout.flush()


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


@cache
def widgets() -> Any:
    """The widget classes of `WIDGET_KINDS`, masked (`w = widgets()`, then `w.Button(description=…)`).

    Built on first use: importing ipywidgets is left to the first widget, as the package always has.
    """
    import ipywidgets
    from ipywidgets.widgets.widget_link import Link

    kinds = {name: Link if name == "Link" else getattr(ipywidgets, name) for name in WIDGET_KINDS}
    return types.SimpleNamespace(**{name: _gated(kind) for name, kind in kinds.items()})


@cache
def _gated(kind: type[Any]) -> type[Any]:
    """`kind` with its state and repr masked (a subclass: the frontend renders it as `kind`), and so are the
    widgets it makes for itself (its `layout`, its `style`)."""
    import traitlets
    from ipywidgets import Widget

    unmasked: Any = kind  # its methods, called with the instance (pyright reads `kind.__repr__` as type's)

    def get_state(self: Any, key: Any = None, drop_defaults: bool = False) -> Any:
        return mask_data(unmasked.get_state(self, key, drop_defaults))

    def __repr__(self: Any) -> str:
        return mask(unmasked.__repr__(self))

    parts: dict[str, Any] = {}
    for name, trait in kind.class_traits(sync=True).items():
        klass: object = getattr(trait, "klass", None)
        if isinstance(trait, traitlets.Instance) and isinstance(klass, type) and issubclass(klass, Widget):
            parts[name] = _gated_part(trait, klass)

    def body(namespace: dict[str, Any]) -> None:
        namespace.update(parts, get_state=get_state, __repr__=__repr__, __module__=__name__)

    return types.new_class(kind.__name__, (kind,), exec_body=body)


def _gated_part(trait: Any, klass: type[Any]) -> Any:
    """The trait of a widget made for the widget (`layout = InstanceDict(Layout)`), making a masked one."""
    tags = {key: value for key, value in trait.metadata.items() if key != "help"}
    return type(trait)(_gated(klass), allow_none=trait.allow_none, help=trait.help).tag(**tags)
