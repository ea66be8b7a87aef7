"""What Inspect says about one object, by kind: a DataFrame, an array, a callable, a module, anything else.

Every piece that touches the object runs as its own time-capped section, so a column whose `__repr__`
hangs costs the head of the table, not the shape and dtypes before it.
"""

from __future__ import annotations

import inspect
import reprlib
import types
import warnings
from collections.abc import Callable
from typing import Any, cast

from ...masking import clip
from .capped import Deadline
from .describe import format_size, module

_HEAD_ROWS = 5
_MAX_COLUMNS_LISTED = 100
_SECTION_CHARS = 4000
_DOC_CHARS = 3000
_MAX_ATTRIBUTES = 60


class Portrait:
    """Sections of text, each computed under the shared deadline; a hang or error becomes a note."""

    def __init__(self, deadline: Deadline) -> None:
        self.deadline = deadline
        self.lines: list[str] = []

    def add(self, title: str, compute: Callable[[], str], *, block: bool = False) -> None:
        if self.deadline.expired():
            self.lines.append(f"{title}: (skipped: the time budget for this inspection is used up)")
            return
        outcome = self.deadline.call(compute)
        if outcome.timed_out:
            seconds = f"{self.deadline.per_call:g}"
            self.lines.append(
                f"{title}: ({title} did not finish in {seconds} s; the object's own code "
                "(__repr__, a property) may hang or be very slow, so it was not waited for)"
            )
        elif outcome.error is not None:
            self.lines.append(
                clip(f"{title}: (failed: {type(outcome.error).__name__}: {outcome.error})", 300)
            )
        elif outcome.value:
            text = _cut(str(outcome.value), _SECTION_CHARS)
            self.lines.append(f"{title}:\n{_indent(text)}" if block or "\n" in text else f"{title}: {text}")

    def text(self) -> str:
        return "\n".join(self.lines)


def _cut(text: str, limit: int) -> str:
    """Masked before it is cut: a cut secret would no longer be recognised by the Dispatcher's mask."""
    return clip(text, limit, marker=f"… [{max(len(text) - limit, 0)} more characters]")


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())


class _MaskingRepr(reprlib.Repr):
    """reprlib cuts long strings and reprs in the middle: here each is masked before it is cut, so no part of
    a secret too short to recognise is left at a cut."""

    def repr_str(self, x: str, level: int) -> str:
        return repr(clip(x, self.maxstring, marker="…"))

    def repr_instance(self, x: object, level: int) -> str:
        try:
            text = repr(x)
        except Exception:
            return f"<{type(x).__name__} instance at {id(x):#x}>"
        return clip(text, self.maxother, marker="…")


def _safe_repr() -> reprlib.Repr:
    """Bounded repr: containers show their first items, strings and unknown reprs are cut."""
    limits = _MaskingRepr()
    limits.maxlevel, limits.maxlist, limits.maxtuple, limits.maxdict = 3, 20, 20, 20
    limits.maxset = limits.maxfrozenset = limits.maxdeque = limits.maxarray = 20
    limits.maxstring, limits.maxother, limits.maxlong = 300, 2000, 60
    return limits


def safe_repr(value: object) -> str:
    """A bounded repr; it still runs the object's own `__repr__`, so call it under a deadline."""
    return _safe_repr().repr(value)


def type_path(value: object) -> str:
    kind = type(value)
    return kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


def _dataframe(p: Portrait, df: Any) -> None:
    p.add("shape", lambda: f"{df.shape[0]} rows × {df.shape[1]} columns")
    p.add("memory", lambda: format_size(int(df.memory_usage(index=True, deep=True).sum())) + " (deep)")
    p.add("index", lambda: _cut(repr(df.index), 300))

    def dtypes() -> str:
        pairs = list(df.dtypes.items())
        lines = [f"{name!s}: {dtype}" for name, dtype in pairs[:_MAX_COLUMNS_LISTED]]
        if len(pairs) > _MAX_COLUMNS_LISTED:
            lines.append(f"… and {len(pairs) - _MAX_COLUMNS_LISTED} more columns")
        return "\n".join(lines)

    p.add("columns (dtype)", dtypes, block=True)
    p.add(
        f"head({_HEAD_ROWS})", lambda: df.head(_HEAD_ROWS).to_string(max_cols=20, max_colwidth=50), block=True
    )


def _series(p: Portrait, series: Any) -> None:
    p.add("length", lambda: str(len(series)))
    p.add("dtype", lambda: str(series.dtype))
    p.add("name", lambda: clip(repr(series.name), 200))
    p.add("memory", lambda: format_size(int(series.memory_usage(index=True, deep=True))) + " (deep)")
    p.add(f"head({_HEAD_ROWS})", lambda: series.head(_HEAD_ROWS).to_string(max_rows=_HEAD_ROWS), block=True)


def _ndarray(p: Portrait, array: Any, np: Any) -> None:
    p.add("shape", lambda: str(tuple(array.shape)))
    p.add("dtype", lambda: str(array.dtype))
    p.add("memory", lambda: format_size(int(array.nbytes)))

    def stats() -> str:
        if array.size == 0 or array.dtype.kind not in "biuf":
            return ""
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            values = array.astype(float) if array.dtype.kind == "b" else array
            low, high, mean = (float(f(values)) for f in (np.nanmin, np.nanmax, np.nanmean))
            found = f"min {low:.6g}, max {high:.6g}, mean {mean:.6g}"
            nans = int(np.isnan(values).sum()) if array.dtype.kind == "f" else 0
        return found + (f", {nans} NaN" if nans else "")

    p.add("stats", stats)
    p.add("values", lambda: np.array2string(array, threshold=60, edgeitems=3, max_line_width=100), block=True)


def _callable(p: Portrait, value: Any) -> None:
    p.add("signature", lambda: f"{getattr(value, '__name__', '')}{_signature(value)}")
    p.add("defined in", lambda: _where(value))
    p.add("docstring", lambda: _cut(inspect.getdoc(value) or "", _DOC_CHARS), block=True)
    if isinstance(value, type):
        p.add("public attributes", lambda: _attributes(value))


class _Annotation:
    """A string annotation (`from __future__ import annotations`) shown as written, not quoted."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _signature(value: Any) -> inspect.Signature:
    """The signature without evaluating string annotations (that would run code) and without quotes."""

    def plain(annotation: Any) -> Any:
        return _Annotation(annotation) if isinstance(annotation, str) else annotation

    signature = inspect.signature(value)
    parameters = [p.replace(annotation=plain(p.annotation)) for p in signature.parameters.values()]
    return signature.replace(parameters=parameters, return_annotation=plain(signature.return_annotation))


def _where(value: Any) -> str:
    module_name = getattr(value, "__module__", None) or ""
    try:
        _, line = inspect.getsourcelines(value)
        path = inspect.getsourcefile(value) or ""
        return f"{module_name} ({path}:{line})" if path else module_name
    except (OSError, TypeError):
        return module_name


def _attributes(value: Any) -> str:
    names = [n for n in dir(value) if not n.startswith("_")]
    shown = ", ".join(names[:_MAX_ATTRIBUTES])
    return shown + (f", … ({len(names) - _MAX_ATTRIBUTES} more)" if len(names) > _MAX_ATTRIBUTES else "")


def _module(p: Portrait, mod: types.ModuleType) -> None:
    p.add("file", lambda: str(getattr(mod, "__file__", "") or "(built in)"))
    p.add("docstring", lambda: _cut(inspect.getdoc(mod) or "", _DOC_CHARS), block=True)
    p.add("public names", lambda: _attributes(mod))


def _keys(value: object) -> str:
    return safe_repr(list(cast("dict[object, object]", value)))


def _other(p: Portrait, value: Any) -> None:
    if type(value) in (list, tuple, dict, set, frozenset, str, bytes):
        p.add("length", lambda: str(len(value)))
    if type(value) in (dict,):  # not `is dict`: that would narrow `value` to an unknown dict below
        p.add("keys", lambda: _keys(value))
    p.add("repr", lambda: safe_repr(value), block=True)
    if type(value).__module__ != "builtins":
        p.add("public attributes", lambda: _attributes(value))


def portray(value: object, deadline: Deadline) -> str:
    """The inspection text for `value` (without its name line)."""
    p = Portrait(deadline)
    np, pd = module("numpy"), module("pandas")
    kind = type(value)  # not isinstance: that may consult a user-defined __class__
    if pd is not None and issubclass(kind, pd.DataFrame):
        _dataframe(p, value)
    elif pd is not None and issubclass(kind, pd.Series):
        _series(p, value)
    elif np is not None and issubclass(kind, np.ndarray):
        _ndarray(p, value, np)
    elif issubclass(kind, types.ModuleType):
        _module(p, cast(types.ModuleType, value))
    elif callable(value):
        _callable(p, value)
    else:
        _other(p, value)
    return p.text()
