"""What happened in the kernel since the agent last looked: cells run, errors, variables, figures.

Started by `%load_ext`, so importing this module stays cheap (the variable-describing code is imported
when the agent first looks). Collected with IPython's own events (`post_run_cell`) and a display-publisher hook for figures; both are
cheap (a record per cell, a reference per figure). The namespace is compared only when the agent looks, and
not at all when no cell ran since. While the agent itself runs (`%%agent`, its RunCode/RunCell) nothing is
recorded: the agent already knows what it did.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sized
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from ..base.agent_cells import is_package_cell, is_package_line
from ..base.json_values import is_object

if TYPE_CHECKING:
    from ..builtin_tools.kernel.describe import VariableFacts

#: Figures kept between looks (the newest); the note attaches fewer, within its own budget.
_FIGURES_KEPT = 4
#: Cells kept between looks (the newest); older ones are counted.
_CELLS_KEPT = 50
#: Cells whose last run is kept for `%agent fix CELL_ID` (the most recently run).
_RUNS_BY_CELL = 500


@dataclass(frozen=True, kw_only=True)
class CellRun:
    """One cell the user ran."""

    execution_count: int | None
    cell_id: str | None
    source: str
    error: BaseException | None = None

    @property
    def own_lines(self) -> list[str]:
        """The cell's non-blank lines that are the user's (not `%load_ext jupyter_agent` above their code)."""
        return [
            line.strip() for line in self.source.splitlines() if line.strip() and not is_package_line(line)
        ]

    @property
    def first_line(self) -> str:
        own = self.own_lines
        return own[0] if own else ""


@dataclass(frozen=True, kw_only=True)
class Figure:
    """An image a cell displayed (base64 PNG/JPEG as in the display message)."""

    execution_count: int | None
    media_type: str
    data: str


@dataclass(frozen=True, kw_only=True)
class VariableChange:
    """A variable created, changed (rebound or reshaped) or deleted since the last look."""

    change: str  # "new" | "changed" | "deleted"
    facts: VariableFacts


@dataclass(frozen=True, kw_only=True)
class SinceLastLook:
    """Everything the note is made of; empty when nothing happened."""

    cells: tuple[CellRun, ...] = ()
    cells_dropped: int = 0
    variables: tuple[VariableChange, ...] = ()
    figures: tuple[Figure, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.cells or self.variables or self.figures)

    @property
    def last_error(self) -> CellRun | None:
        for cell in reversed(self.cells):
            if cell.error is not None:
                return cell
        return None


Fingerprint = tuple[int, str, str]


@dataclass
class KernelWatcher:
    """Subscribes to the shell's events; `look()` returns what happened since the previous look."""

    shell: Any
    #: Called with each user cell that raised (the "Fix with agent" button), after it is recorded.
    on_error: Callable[[CellRun], None] | None = None
    cells: deque[CellRun] = field(default_factory=lambda: deque(maxlen=_CELLS_KEPT))
    figures: deque[Figure] = field(default_factory=lambda: deque(maxlen=_FIGURES_KEPT))
    cells_seen: int = 0
    #: The last cell the user ran that raised, kept across looks for `%agent fix`.
    last_error: CellRun | None = None
    #: Each cell's last run by cell id (the newest `_RUNS_BY_CELL`), for `%agent fix CELL_ID`.
    last_runs: dict[str, CellRun] = field(default_factory=dict[str, CellRun])
    _fingerprints: dict[str, Fingerprint] | None = None
    _paused: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _unsubscribe: list[Callable[[], None]] = field(default_factory=list[Callable[[], None]])

    # -- subscription -------------------------------------------------------------------------------------
    def start(self) -> KernelWatcher:
        events = getattr(self.shell, "events", None)
        if events is not None:
            events.register("post_run_cell", self._post_run_cell)
            self._unsubscribe.append(lambda: events.unregister("post_run_cell", self._post_run_cell))
        publisher = getattr(self.shell, "display_pub", None)
        if publisher is not None and hasattr(publisher, "register_hook"):
            publisher.register_hook(self._display_hook)
            self._unsubscribe.append(lambda: publisher.unregister_hook(self._display_hook))
        self._fingerprints = self._fingerprint(self._namespace())
        return self

    def stop(self) -> None:
        for undo in self._unsubscribe:
            with contextlib.suppress(ValueError):  # already gone (the shell was reset)
                undo()
        self._unsubscribe.clear()

    def last_run_of(self, cell_id: str) -> CellRun | None:
        """The cell's last run since the extension was loaded (None: not run since, or forgotten)."""
        with self._lock:
            return self.last_runs.get(cell_id)

    def paused(self) -> AbstractContextManager[None]:
        """`with watcher.paused():` — what runs inside (the agent's own run) is not recorded."""
        return _Pause(self)

    # -- events -------------------------------------------------------------------------------------------
    def _post_run_cell(self, result: Any) -> None:
        if self._paused:
            return
        info = getattr(result, "info", None)
        source = str(getattr(info, "raw_cell", "") or "")
        if is_package_cell(source):
            return  # the agent's own cells and `%load_ext jupyter_agent`: not the user's work
        error = getattr(result, "error_in_exec", None) or getattr(result, "error_before_exec", None)
        cell = CellRun(
            execution_count=getattr(result, "execution_count", None),
            cell_id=getattr(info, "cell_id", None) or None,
            source=source,
            error=error if isinstance(error, BaseException) else None,
        )
        with self._lock:
            self.cells.append(cell)
            self.cells_seen += 1
            if cell.error is not None:
                self.last_error = cell
            if cell.cell_id is not None:
                self.last_runs.pop(cell.cell_id, None)  # newest last: the oldest go first
                self.last_runs[cell.cell_id] = cell
                while len(self.last_runs) > _RUNS_BY_CELL:
                    del self.last_runs[next(iter(self.last_runs))]
        if cell.error is not None and self.on_error is not None:
            self.on_error(cell)

    def _display_hook(self, msg: Any) -> Any:
        """Keep a reference to images the user's cells display; the message passes through unchanged."""
        if self._paused or not is_object(msg):
            return msg
        content = msg.get("content")
        data = content.get("data") if is_object(content) else None
        if is_object(data):
            for media_type in ("image/png", "image/jpeg"):
                value = data.get(media_type)
                if isinstance(value, str) and value:
                    count = getattr(self.shell, "execution_count", None)
                    with self._lock:
                        self.figures.append(Figure(execution_count=count, media_type=media_type, data=value))
                    break
        return msg

    # -- looking ------------------------------------------------------------------------------------------
    def peek(self) -> SinceLastLook:
        """What the next look would return, without moving the mark (`%agent context`)."""
        return self._collect(advance=False)

    def look(self) -> SinceLastLook:
        """What happened since the last look; the mark moves here."""
        return self._collect(advance=True)

    def settle(self) -> None:
        """Take the namespace as it is now as seen: what the agent's own run changed is not news."""
        self._fingerprints = self._fingerprint(self._namespace())

    def _collect(self, *, advance: bool) -> SinceLastLook:
        with self._lock:
            cells = tuple(self.cells)
            figures = tuple(self.figures)
            dropped = max(self.cells_seen - len(cells), 0)
            if advance:
                self.cells.clear()
                self.figures.clear()
                self.cells_seen = 0
        if not cells and not figures:
            return SinceLastLook()  # nothing ran: the namespace is not even looked at
        namespace = self._namespace()
        now = self._fingerprint(namespace)
        before = self._fingerprints or {}
        changes = self._changes(before, now, namespace)
        if advance:
            self._fingerprints = now
        return SinceLastLook(cells=cells, cells_dropped=dropped, variables=changes, figures=figures)

    def _namespace(self) -> Mapping[str, Any]:
        from ..builtin_tools.kernel.describe import is_callable_kind, is_hidden

        namespace = getattr(self.shell, "user_ns", None)
        if not is_object(namespace):
            return {}
        hidden: Any = getattr(self.shell, "user_ns_hidden", {})
        items: dict[str, Any] = dict(namespace)
        return {
            name: value
            for name, value in items.items()
            if not is_hidden(name, value)
            and not is_callable_kind(value)
            and not (name in hidden and hidden[name] is value)
        }

    @staticmethod
    def _fingerprint(namespace: Mapping[str, Any]) -> dict[str, Fingerprint]:
        """Identity, type and a cheap size: a rebinding or an in-place reshape shows as a change."""
        return {
            name: (id(value), type(value).__qualname__, _cheap_size(value))
            for name, value in namespace.items()
        }

    @staticmethod
    def _changes(
        before: Mapping[str, Fingerprint], now: Mapping[str, Fingerprint], namespace: Mapping[str, Any]
    ) -> tuple[VariableChange, ...]:
        from ..builtin_tools.kernel.capped import Deadline
        from ..builtin_tools.kernel.describe import VariableFacts, describe_variable

        deadline = Deadline(per_call=0.5, total=3.0)
        changes: list[VariableChange] = []
        for name in now:
            if name not in before or before[name] != now[name]:
                kind = "new" if name not in before else "changed"
                changes.append(
                    VariableChange(change=kind, facts=describe_variable(name, namespace[name], deadline))
                )
        for name in itertools.filterfalse(now.__contains__, before):
            changes.append(
                VariableChange(change="deleted", facts=VariableFacts(name=name, type_name=before[name][1]))
            )
        return tuple(changes)


_BUILTIN_SIZED: tuple[type[Sized], ...] = (list, tuple, dict, set, frozenset, str, bytes)


def _cheap_size(value: object) -> str:
    """`len` of builtin containers and `shape` of arrays/frames (a plain attribute on numpy and pandas)."""
    if isinstance(value, _BUILTIN_SIZED):
        return str(len(value))
    module = type(value).__module__.split(".")[0]
    if module in ("numpy", "pandas"):
        shape = getattr(value, "shape", None)
        return str(cast("tuple[object, ...]", shape)) if isinstance(shape, tuple) else ""
    return ""


class _Pause(AbstractContextManager[None]):
    def __init__(self, watcher: KernelWatcher) -> None:
        self.watcher = watcher

    def __enter__(self) -> None:
        self.watcher._paused += 1

    def __exit__(self, *exc: object) -> None:
        self.watcher._paused -= 1
        if not self.watcher._paused:
            self.watcher.settle()
