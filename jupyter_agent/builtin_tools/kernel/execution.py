"""Run a piece of code like a notebook cell, on the thread that calls it, with capture and a time limit.

This is what RunCode hands to the kernel's main thread. It does not go through `shell.run_cell`: in
ipykernel that publishes tracebacks and `Out` values straight to the frontend (into the agent's own
cell), where the model cannot see them. Instead it uses the shell's parts — IPython syntax (`%magic`,
`!cmd`), the display formatter, the display publisher, the pre/post_execute events (which is how the
inline matplotlib backend shows figures) — and captures everything into one OutputLog.

The time limit raises `CodeTimeout` inside the running code (`PyThreadState_SetAsyncExc`). It lands at the
next bytecode, so pure-Python loops stop at once; a call blocked in C (a long sleep, I/O) stops when it
returns.
"""

from __future__ import annotations

import ast
import ctypes
import itertools
import linecache
import sys
import threading
import traceback
from dataclasses import dataclass
from types import CodeType, TracebackType
from typing import Any

from IPython.core.displaypub import DisplayPublisher

from ...base.json_values import is_object
from ...base.result import ImageContent
from .journal.analysis import CodeEffects, code_effects, code_names
from .journal.capture import KernelWatch
from .output_log import LogStream, OutputLog
from .tracebacks import note_agent_exception

_COUNTER = itertools.count(1)


class CodeTimeout(BaseException):
    """Raised inside the agent's code when its time is up (a BaseException, so `except Exception` can't eat it)."""

    def __str__(self) -> str:
        return "RunCode's time limit was reached here"


class TopLevelAwait(Exception):
    """The code awaits at top level, which cannot run while the agent's own cell holds the event loop."""


@dataclass(frozen=True, kw_only=True)
class Outcome:
    output: str
    images: tuple[ImageContent, ...]
    #: "ZeroDivisionError: division by zero", or None when the code finished.
    error: str | None = None
    traceback: str = ""
    timed_out: bool = False
    interrupted: bool = False
    #: Why the code never ran though its journal had begun (`the kernel journal failed while …`); '' when it ran.
    not_run: str = ""


def _set_async_exc(thread_id: int, exc: type[BaseException] | None) -> None:
    """Schedule `exc` in that thread (None clears a scheduled one that has not been raised yet)."""
    target = ctypes.py_object(exc) if exc is not None else None
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), target)


class _Alarm:
    """Raises CodeTimeout in the running thread after `seconds`, unless disarmed first; never afterwards."""

    def __init__(self, seconds: float) -> None:
        self.thread_id = threading.get_ident()
        self.fired = False
        self._armed = True
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def _fire(self) -> None:
        with self._lock:
            if self._armed:
                self.fired = True
                _set_async_exc(self.thread_id, CodeTimeout)

    def disarm(self) -> None:
        with self._lock:
            self._armed = False
            self._timer.cancel()
            if self.fired:  # it may still be pending: it must not go off in whoever runs next on this thread
                _set_async_exc(self.thread_id, None)


class _LogPublisher(DisplayPublisher):
    """Takes the place of the shell's display publisher while the code runs: `display()` lands in the log."""

    def __init__(self, log: OutputLog, shell: Any) -> None:
        # IPython's DisplayPublisher.__init__ has no annotations (its `shell` parameter is unknown to a checker).
        super().__init__(shell=shell)  # pyright: ignore[reportUnknownMemberType]
        self.log = log

    def publish(self, data: Any, metadata: Any = None, source: Any = None, **kwargs: Any) -> None:  # pyright: ignore[reportIncompatibleMethodOverride]
        if is_object(data):
            self.log.display(data)

    def clear_output(self, wait: bool = False) -> None:
        return None

    def _setup_execution_tracking(self) -> None:
        """IPython 9 registers a publisher's pre/post_execute hooks when it is made and never drops them: one per
        call would pile up on the shell (each later cell and call runs them all, and they keep every call's
        output alive). This publisher lives for one call and does not use them."""
        return None


def _user_frames(tb: TracebackType | None, filename: str) -> TracebackType | None:
    """Drop our own frames from the top of a traceback, so it starts where the user's code does."""
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    return tb


class CodeRun:
    """One RunCode execution; `run()` is called on the kernel's main thread (or a stand-in for it)."""

    def __init__(
        self,
        code: str,
        namespace: dict[str, Any],
        *,
        shell: Any | None,
        timeout: float,
        max_chars: int,
        max_image_bytes: int,
        reraise_interrupt: bool = False,
        watch: KernelWatch | None = None,
        origin: str = "RunCode",
    ) -> None:
        self.code = code
        #: Who ran it, as Debug names the exception it raised ("RunCode", "RunCell (cell 'load')").
        self.origin = origin
        #: The kernel journal around the code (None: not journaled): copies before it runs, compares after.
        self.watch = watch
        #: Re-raise the user's KeyboardInterrupt after capture (the caller must then catch it, see run()).
        self.reraise_interrupt = reraise_interrupt
        self.namespace = namespace
        self.shell = shell
        self.timeout = timeout
        self.filename = f"<agent-code-{next(_COUNTER)}>"
        self.log = OutputLog(max_chars=max_chars, max_image_bytes=max_image_bytes)
        self.error: BaseException | None = None
        self.interrupted = False
        self.not_run = ""
        #: Set when run() ends, also when it re-raises the user's KeyboardInterrupt.
        self.outcome: Outcome | None = None

    def run(self) -> Outcome:
        """Run the code and say what happened. With `reraise_interrupt`, the user's KeyboardInterrupt is raised
        again after capture, so that the kernel's UI thread sees it and stops the agent; the awaiting tool then
        gets KeyboardInterrupt from the main-thread service and finds what ran before it in `self.outcome`."""
        saved = sys.stdout, sys.stderr
        saved_pub = self.shell.display_pub if self.shell is not None else None
        timed_out = False
        sys.stdout, sys.stderr = LogStream(self.log, "stdout"), LogStream(self.log, "stderr")
        if self.shell is not None:
            self.shell.display_pub = _LogPublisher(self.log, self.shell)
        try:
            self._run_guarded()
        except CodeTimeout as exc:
            timed_out = True
            self.error = exc
        finally:
            sys.stdout, sys.stderr = saved
            if self.shell is not None:
                self.shell.display_pub = saved_pub
            if self.watch is not None:
                self.watch.after()  # also after an error, a timeout or an interrupt: what ran changed things
        self.outcome = self._outcome(timed_out)
        if self.reraise_interrupt and self.interrupted and isinstance(self.error, KeyboardInterrupt):
            raise self.error
        return self.outcome

    def _run_guarded(self) -> None:
        try:
            body, last, effects = self._compile()
            alarm = _Alarm(self.timeout)  # started before the journal's copies: they count against the limit
            try:
                if self.watch is not None and effects is not None:
                    self._journal_before(effects, code_names(body, last))
                if self.shell is not None:
                    self.shell.events.trigger("pre_execute")
                try:
                    exec(body, self.namespace)
                    if last is not None:
                        self._show(eval(last, self.namespace))
                finally:
                    if self.shell is not None:
                        self.shell.events.trigger("post_execute")
            finally:
                alarm.disarm()
        except CodeTimeout:
            raise
        except KeyboardInterrupt as exc:
            self.interrupted = True
            self.error = exc
        except BaseException as exc:  # the user's error (SystemExit included) is a result, not our crash
            self.error = exc
            note_agent_exception(exc, self.origin)

    def _journal_before(self, effects: CodeEffects, names: frozenset[str] | None) -> None:
        """The journal's copies, before the code: what stops or breaks them (the time limit, an Interrupt, a
        `__deepcopy__` raising SystemExit) stops the call there, and the result says the code never ran."""
        assert self.watch is not None
        watched = ", ".join(name for name in effects.mutates_in_order if name in self.namespace)
        try:
            self.watch.before(effects, names)
        except CodeTimeout:
            self.not_run = (
                f"the {self.timeout:g} s time limit ran out while the kernel journal copied the variables it "
                f"may change ({watched}); a longer timeout, or a smaller kernel_undo_budget_mb, leaves it time"
            )
            raise
        except KeyboardInterrupt:
            self.not_run = (
                f"the user interrupted the kernel journal's copy of the variables it may change ({watched})"
            )
            raise
        except BaseException as exc:
            self.not_run = (
                f"the kernel journal failed while it copied the variables it may change ({watched}): "
                f"{type(exc).__name__}: {exc}"
            )
            raise

    def _compile(self) -> tuple[CodeType, CodeType | None, CodeEffects | None]:
        source = self.shell.transform_cell(self.code) if self.shell is not None else self.code
        linecache.cache[self.filename] = (len(source), None, source.splitlines(True), self.filename)
        tree = ast.parse(source, self.filename, "exec")
        effects = code_effects(tree) if self.watch is not None else None  # the whole cell, last line included
        last: ast.Expression | None = None
        if tree.body and isinstance(tree.body[-1], ast.Expr) and not source.rstrip().endswith(";"):
            expr = tree.body.pop()
            assert isinstance(expr, ast.Expr)
            last = ast.Expression(expr.value)
        try:
            body = compile(tree, self.filename, "exec")
            return body, (compile(last, self.filename, "eval") if last is not None else None), effects
        except SyntaxError as exc:
            if "await" in str(exc.msg):
                raise TopLevelAwait(
                    "RunCode cannot run top-level `await`: the kernel's event loop is busy running the agent's "
                    "cell. Use synchronous calls, or ask the user to run that code in a cell"
                ) from None
            raise

    def _show(self, value: Any) -> None:
        """The cell's `Out`: the last expression's value, formatted as the notebook would (None shows nothing)."""
        if value is None:
            return
        if self.shell is not None:
            data, _metadata = self.shell.display_formatter.format(value)
            self.log.display(data, label="Out:")
        else:
            self.log.write(f"Out: {value!r}\n")

    def _outcome(self, timed_out: bool) -> Outcome:
        images = tuple(self.log.images)
        if self.error is None:
            return Outcome(output=self.log.text(), images=images)
        exc = self.error
        tb = _user_frames(exc.__traceback__, self.filename)
        text = "".join(traceback.format_exception(type(exc), exc, tb))
        if tb is None and not isinstance(exc, SyntaxError):  # refused before running: the message says it all
            text = ""
        return Outcome(
            output=self.log.text(),
            images=images,
            error=f"{type(exc).__name__}: {exc}",
            traceback=text,
            timed_out=timed_out,
            interrupted=self.interrupted,
            not_run=self.not_run,
        )
