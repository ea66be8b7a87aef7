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

A redraw changes the widgets it has (labels, `disabled`); only rows that came or went are made or closed, with
their layouts and styles. When a newer review takes its place, `freeze` closes every widget and leaves static
HTML with the rows as they stand and the command that brings the buttons back: a long day of runs keeps one
live review, not one per run.

The display carries a static rendering too (text/plain and text/html, `static_bundle`): what nbconvert, GitHub and a
page whose kernel restarted show. It says what was decided — kept, undone, or not reviewed — never "pending", which
stops being true with the kernel. Each time it changes (a click, `%agent undo`, a freeze) `on_static` is told, so
the page can put it into the saved notebook (a display cannot be updated once its cell is done).
"""

from __future__ import annotations

import contextvars
import threading
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Literal

from ..undo.review import ReviewResult
from .gate import show_widget, update_bundle, widgets
from .html import MUTED, esc
from .jupyter_api import add_class, on_click
from .widget_tree import close_tree

Action = Literal["keep", "undo"]


@dataclass(frozen=True, kw_only=True)
class ReviewRow:
    """One net change as the widget shows it; `target` is what `act` takes (a cell id or a path)."""

    target: str
    text: str
    state: str
    #: A cell of the live page: the row has "Show in notebook", which scrolls to it ('' for the others).
    cell_id: str = ""


Rows = Callable[[], Sequence[ReviewRow]]
#: Scroll the page to a cell and select it, by id.
Reveal = Callable[[str], None]
Act = Callable[[Action, str], "Future[Sequence[ReviewResult]]"]
#: Told the static rendering of a review's display whenever it changes: the widget's model id, the bundle, and
#: whether the widget is still live (False once frozen: the page may drop the widget view).
OnStatic = Callable[[str, dict[str, str], bool], None]

#: A row's state as the static rendering says it: true after the kernel is gone.
STATIC_STATE = {"pending": "not reviewed", "kept": "kept", "undone": "undone"}


def _ignore_static(_model_id: str, _bundle: dict[str, str], _live: bool) -> None:
    return None


@dataclass
class _RowWidgets:
    """The widgets of one row, kept across redraws."""

    label: Any
    keep: Any
    undo: Any
    box: Any


class ReviewWidget:
    """See the module docstring; `rows` reads the review state afresh (the journal is the source of truth).

    `again` is the command that shows this review once more (`%agent review 3`), said when it is frozen."""

    def __init__(
        self, *, title: str, rows: Rows, act: Act, again: str = "", reveal: Reveal | None = None
    ) -> None:
        w = widgets()
        self._w = w
        self.title = title
        self.rows = rows
        self.act = act
        self.again = again
        self.reveal = reveal
        self.display_id = uuid.uuid4().hex
        #: See the module docstring (set by whoever shows it: the review pages).
        self.on_static: OnStatic = _ignore_static
        self._static_sent: dict[str, str] | None = None
        #: True once frozen: static HTML, no widget left.
        self.frozen = False
        # The widgets (None once frozen).
        self.box: Any = w.VBox()
        add_class(self.box, "jp-agent-review")
        self.head: Any = w.HTML(value=f"<b>{esc(title)}</b>")
        #: The last click's outcome (a refusal's reason stays here until the next click).
        self.message: Any = w.HTML()
        self.keep_all: Any = self._button("Keep all", "keep", "all")
        self.undo_all: Any = self._button("Undo all", "undo", "all")
        self.all_box: Any = w.HBox([self.keep_all, self.undo_all])
        self._rows: dict[str, _RowWidgets] = {}
        self._last_text = ""
        #: The box's model id, kept when frozen (the page finds the display by it).
        self.model_id = str(self.box.model_id)
        #: Held for every change of the rows or buttons (see the module docstring); reentrant: `_done` redraws.
        self._lock = threading.RLock()
        #: Actions started and not yet done: while any runs, every button is drawn disabled.
        self._running = 0
        self.redraw()

    @property
    def buttons(self) -> dict[tuple[Action, str], Any]:
        """Every button by what it does, the Keep all / Undo all pair under `all`."""
        with self._lock:
            found: dict[tuple[Action, str], Any] = {}
            if self.frozen:
                return found
            for target, row in self._rows.items():
                found[("keep", target)], found[("undo", target)] = row.keep, row.undo
            found[("keep", "all")], found[("undo", "all")] = self.keep_all, self.undo_all
            return found

    def show(self, *, into: str | None = None) -> None:
        """The widget, with the review as text for what shows no widgets (nbconvert, a saved file's viewer);
        `into`: in the display slot with that id (the top of the run's output) rather than a new display."""
        static = self.static_bundle()
        self.model_id = str(self.box.model_id)
        self._static_sent = static
        if into is not None:
            self.display_id = into
        show_widget(
            self.box,
            text=static["text/plain"],
            html=static["text/html"],
            display_id=self.display_id,
            in_place=into is not None,
        )

    def redraw(self) -> None:
        with self._lock:
            if self.frozen:
                return
            rows = list(self.rows())
            busy = self._running > 0
            targets = [row.target for row in rows]
            for gone in [t for t in self._rows if t not in targets]:
                close_tree(self._rows.pop(gone).box)
            for row in rows:
                drawn = self._rows.get(row.target) or self._new_row(row)
                self._rows[row.target] = drawn
                # traitlets sends the page only what changed: an unchanged value costs no message
                drawn.label.value = f"<code>{esc(row.text)}</code> · {esc(row.state)}"
                drawn.keep.disabled = busy or row.state != "pending"
                drawn.undo.disabled = busy or row.state == "undone"
            pending = any(row.state == "pending" for row in rows)
            self.keep_all.disabled = self.undo_all.disabled = busy or not pending
            self.box.children = (self.head, *(self._rows[t].box for t in targets), self.all_box, self.message)
            self._tell_static(live=True)

    def _tell_static(self, *, live: bool) -> None:
        """Tell `on_static` the static rendering, when it changed since it was last shown or told."""
        if self._static_sent is None:
            return  # not shown yet: `show` puts it into the display
        static = self.static_bundle()
        if static != self._static_sent or not live:
            self._static_sent = static
            self.on_static(self.model_id, static, live)

    def _new_row(self, row: ReviewRow) -> _RowWidgets:
        w = self._w
        target = row.target
        keep, undo = self._button("Keep", "keep", target), self._button("Undo", "undo", target)
        label = w.HTML()
        parts = [label, keep, undo]
        if row.cell_id and self.reveal is not None:
            reveal, cell_id = self.reveal, row.cell_id
            show = w.Button(
                description="Show in notebook",
                tooltip=f"Show {row.text} in the notebook",
                layout=w.Layout(width="auto"),
            )
            add_class(show, "jp-agent-review-show")
            on_click(show, lambda _b: reveal(cell_id))
            parts.append(show)
        return _RowWidgets(label=label, keep=keep, undo=undo, box=w.HBox(parts))

    def _button(self, label: str, action: Action, target: str) -> Any:
        tooltip = f"{action.capitalize()} every pending change" if target == "all" else f"{label} {target}"
        button = self._w.Button(
            description=label, tooltip=tooltip, disabled=True, layout=self._w.Layout(width="auto")
        )
        add_class(button, f"jp-agent-review-{action}")
        on_click(button, lambda _b: self.click(action, target))
        return button

    def click(self, action: Action, target: str) -> None:
        """Start the action and return; the rows are redrawn when it is done."""
        with self._lock:
            if self.frozen:
                return
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
            self._last_text = text
            if self.frozen:
                self.refresh()
                return
            self.message.value = f'<pre style="white-space:pre-wrap;margin:2px 0">{esc(text)}</pre>'
            self.redraw()

    # -- static -----------------------------------------------------------------------------------------
    def freeze(self) -> None:
        """Replace the widgets by static HTML (`static_bundle`) and close them all, layouts and styles included."""
        with self._lock:
            if self.frozen:
                return
            self.frozen = True
            update_bundle(self.static_bundle(), display_id=self.display_id)
            self._tell_static(live=False)
            close_tree(self.box, self.all_box, *(row.box for row in self._rows.values()))
            self._rows.clear()
            # Closed widgets keep their state: the frozen review lets go of them (it lives as long as its run).
            self.box = self.head = self.message = self.keep_all = self.undo_all = self.all_box = None

    def refresh(self) -> None:
        """A frozen review shows the rows as they stand now (its run's review changed)."""
        with self._lock:
            if self.frozen:
                update_bundle(self.static_bundle(), display_id=self.display_id)
                self._tell_static(live=False)

    def static_bundle(self) -> dict[str, str]:
        """The review as text and HTML, as it stands: each row with what was decided (`STATIC_STATE`), the last
        click's outcome, and (frozen) the command that brings the buttons back."""
        rows = list(self.rows())
        said = [(row.text, STATIC_STATE.get(row.state, row.state)) for row in rows]
        again = (
            f"{self.again} shows Keep / Undo again (while this kernel runs)"
            if self.again and self.frozen
            else ""
        )
        lines = (
            "".join(f"<div><code>{esc(text)}</code> · {esc(state)}</div>" for text, state in said)
            or "<div>no changes</div>"
        )
        outcome = (
            f'<pre style="white-space:pre-wrap;margin:2px 0">{esc(self._last_text)}</pre>'
            if self._last_text
            else ""
        )
        hint = (
            f'<div style="font-size:11px;color:{MUTED};"><code>{esc(self.again)}</code> '
            "shows Keep / Undo again (while this kernel runs)</div>"
            if again
            else ""
        )
        plain_rows = "\n".join(f"{text} · {state}" for text, state in said) or "no changes"
        plain = "\n".join(part for part in (self.title, plain_rows, self._last_text, again) if part)
        return {
            "text/plain": plain,
            "text/html": f'<div class="jp-agent-review jp-agent-review-static"><b>{esc(self.title)}</b>'
            f"{lines}{outcome}{hint}</div>",
        }
