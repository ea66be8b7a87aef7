"""Closing widgets for good: a widget, the widgets inside it, and the layout and style model each one made.

`Widget.close()` closes one model. A Button also made a Layout and a ButtonStyle model and a Box holds its
children; closed alone, those stay alive in the kernel, in the page and in the notebook's saved widget state,
three more per button, per run. `OwnedWidgets` is what a run's view (or a review footer) keeps of the widgets it
showed, so that everything goes when it is replaced or no longer shown.
"""

from __future__ import annotations

import threading
from typing import Any, TypeVar

W = TypeVar("W")

#: The traits through which a widget holds models it made; other widget-valued traits (a link's two ends)
#: point at widgets someone else owns.
_HELD = ("children", "layout", "style")


def tree_of(root: Any) -> list[Any]:
    """`root` and every model it holds through `_HELD`, each once, the holders first."""
    found: list[Any] = []
    seen: set[int] = set()
    stack = [root]
    while stack:
        widget = stack.pop()
        if id(widget) in seen or not hasattr(widget, "close"):
            continue
        seen.add(id(widget))
        found.append(widget)
        for name in _HELD:
            held: object = getattr(widget, name, None)
            if isinstance(held, list | tuple):
                stack.extend(reversed(held))  # pyright: ignore[reportUnknownArgumentType]
            elif held is not None:
                stack.append(held)
    return found


def close_tree(*roots: Any) -> None:
    """Close each root and every model it holds (a model closed already is left as it is)."""
    for root in roots:
        for widget in tree_of(root):
            widget.close()


class OwnedWidgets:
    """The widgets one view showed; `close` closes them all, with everything they hold. Thread-safe: a view
    may be drawn by a click on the kernel's main thread and by the agent's worker."""

    def __init__(self) -> None:
        self._roots: list[Any] = []
        self._lock = threading.Lock()

    def own(self, root: W) -> W:
        with self._lock:
            self._roots.append(root)
        return root

    def release(self, root: Any) -> None:
        """Close `root` (and what it holds) now and forget it."""
        with self._lock:
            self._roots = [r for r in self._roots if r is not root]
        close_tree(root)

    def close(self) -> None:
        with self._lock:
            roots, self._roots = self._roots, []
        close_tree(*roots)

    def __len__(self) -> int:
        return len(self._roots)
