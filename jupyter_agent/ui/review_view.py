"""The review of a run as ipywidgets: a row per changed cell or file with Keep / Undo, then Keep all / Undo all.

Shown under a run that changed something (its footer) and by `%agent review`, in every frontend with widgets
(VS Code included), and still working after the cell has finished. A click must not wait on the main thread:
an undo in a live notebook sends bridge ops whose replies the main thread itself dispatches. So `act` only
starts the work (on the agent's worker) and the rows are redrawn when it is done, in the click's context
(its messages then have the click as their parent, which ipykernel needs outside the main thread).

So two threads change the widget: the kernel's main thread (a click) and the worker (the redraw when an action
ends). One lock keeps each change whole — a click that arrives while the rows are being redrawn waits for the
new rows and disables them, rather than walk a half-built set of buttons (and lose the click to "dictionary
changed size during iteration") — and every drawing made while an action runs has its buttons disabled.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Literal

from ..undo.review import ReviewResult
from .gate import show_widget, widgets
from .html import esc
from .jupyter_api import add_class, on_click

Action = Literal["keep", "undo"]


@dataclass(frozen=True, kw_only=True)
class ReviewRow:
    """One net change as the widget shows it; `target` is what `act` takes (a cell id or a path)."""

    target: str
    text: str
    state: str


Rows = Callable[[], Sequence[ReviewRow]]
Act = Callable[[Action, str], "Future[Sequence[ReviewResult]]"]


class ReviewWidget:
    """See the module docstring; `rows` reads the review state afresh (the journal is the source of truth)."""

    def __init__(self, *, title: str, rows: Rows, act: Act, text: Callable[[], str]) -> None:
        w = widgets()
        self._w = w
        self.title = title
        self.rows = rows
        self.act = act
        self.text = text
        self.box = w.VBox()
        add_class(self.box, "jp-agent-review")
        #: The last click's outcome (a refusal's reason stays here until the next click).
        self.message = w.HTML()
        self.buttons: dict[tuple[Action, str], Any] = {}
        #: Held for every change of the rows or buttons (see the module docstring); reentrant: `_done` redraws.
        self._lock = threading.RLock()
        #: Actions started and not yet done: while any runs, every button is drawn disabled.
        self._running = 0
        self.redraw()

    def show(self) -> None:
        """The widget, with the review as text for what shows no widgets (nbconvert, a saved file's viewer)."""
        show_widget(self.box, text=self.text())

    def redraw(self) -> None:
        with self._lock:
            w = self._w
            rows = list(self.rows())
            pending = [row for row in rows if row.state == "pending"]
            buttons: dict[tuple[Action, str], Any] = {}
            lines: list[Any] = [w.HTML(value=f"<b>{esc(self.title)}</b>")]
            for row in rows:
                keep = self._button(buttons, "Keep", "keep", row.target, enabled=row.state == "pending")
                undo = self._button(buttons, "Undo", "undo", row.target, enabled=row.state != "undone")
                label = w.HTML(value=f"<code>{esc(row.text)}</code> · {esc(row.state)}")
                lines.append(w.HBox([label, keep, undo]))
            lines.append(
                w.HBox(
                    [
                        self._button(buttons, "Keep all", "keep", "all", enabled=bool(pending)),
                        self._button(buttons, "Undo all", "undo", "all", enabled=bool(pending)),
                    ]
                )
            )
            lines.append(self.message)
            self.buttons = buttons
            self.box.children = tuple(lines)

    def _button(
        self,
        buttons: dict[tuple[Action, str], Any],
        label: str,
        action: Action,
        target: str,
        *,
        enabled: bool,
    ) -> Any:
        tooltip = f"{action.capitalize()} every pending change" if target == "all" else f"{label} {target}"
        button = self._w.Button(
            description=label,
            tooltip=tooltip,
            disabled=not enabled or self._running > 0,
            layout=self._w.Layout(width="auto"),
        )
        add_class(button, f"jp-agent-review-{action}")
        on_click(button, lambda _b: self.click(action, target))
        buttons[(action, target)] = button
        return button

    def click(self, action: Action, target: str) -> None:
        """Start the action and return; the rows are redrawn when it is done."""
        with self._lock:
            self._running += 1
            for button in self.buttons.values():
                button.disabled = True  # one action at a time: a second click would race the first
        context = contextvars.copy_context()
        try:
            future = self.act(action, target)
        except Exception as exc:  # not even started: said under the rows, and the buttons come back
            failed: Future[Sequence[ReviewResult]] = Future()
            failed.set_exception(exc)
            self._done(failed)
            return
        future.add_done_callback(lambda done: context.run(self._done, done))

    def _done(self, done: Future[Sequence[ReviewResult]]) -> None:
        try:
            results = done.result()
            text = "\n".join(result.text for result in results) or "nothing to do"
        except Exception as exc:  # shown under the rows, never lost in a thread
            text = f"{type(exc).__name__}: {exc}"
        with self._lock:
            self._running -= 1
            self.message.value = f'<pre style="white-space:pre-wrap;margin:2px 0">{esc(text)}</pre>'
            self.redraw()
