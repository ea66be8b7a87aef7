"""One-line facts about a value (type, shape/len, dtype, approximate size) without running user code unsafely.

Builtin scalars are described directly. Anything else is described inside a time-capped call, because even
`len()`, `.shape` or `sys.getsizeof()` can run user code. pandas and numpy are looked up in `sys.modules`:
if the user never imported them, no value can be one of theirs, and we never import them ourselves.
"""

from __future__ import annotations

import itertools
import sys
import types
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any, TypeGuard, cast

from ...masking import clip
from .capped import Deadline
from .guards import CREDENTIAL_HIDDEN, names_credential

_SCALARS: tuple[type, ...] = (int, float, bool, complex, str, bytes, type(None))
_CONTAINERS: tuple[type, ...] = (list, tuple, dict, set, frozenset)
_SAMPLE = 100
_VALUE_CHARS = 40


@dataclass(frozen=True, kw_only=True)
class VariableFacts:
    name: str
    type_name: str
    shape: str = ""
    dtype: str = ""
    size: str = ""
    value: str = ""
    #: Why some facts are missing ("did not finish in 1 s").
    note: str = ""


def format_size(nbytes: int) -> str:
    size = float(nbytes)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} TB"  # pragma: no cover - the loop returns first


def module(name: str) -> Any | None:
    """A library module only if the user has already imported it."""
    return sys.modules.get(name)


def short_value(value: object) -> str:
    """A short repr for builtin scalars only (their repr is ours, not the user's); '' otherwise."""
    if type(value) not in _SCALARS:
        return ""
    if isinstance(value, int) and value.bit_length() > 200:  # str() of a huge int is slow or refused
        return f"<int of about {int(value.bit_length() * 0.30103) + 1} digits>"
    return clip(repr(value), _VALUE_CHARS - 1)


def _container_size(value: Collection[object]) -> int:
    """getsizeof of the container plus its elements (a dict's keys and values), extrapolated from a sample
    of the first ones."""
    total, count = sys.getsizeof(value), len(value)
    entries: Iterable[tuple[object, ...]] = (
        cast("dict[object, object]", value).items()
        if isinstance(value, dict)
        else ((item,) for item in value)
    )
    sample = list(itertools.islice(entries, _SAMPLE))
    if not sample:
        return total
    sampled = sum(sys.getsizeof(part) for entry in sample for part in entry)
    return total + int(sampled * count / len(sample))


def _is_shape(value: object) -> TypeGuard[tuple[int, ...]]:
    """A tuple of ints, as the `shape` of an array-like is (torch.Size is a tuple subclass)."""
    return isinstance(value, tuple) and all(isinstance(n, int) for n in cast("tuple[object, ...]", value))


def _array_like_facts(value: Any) -> tuple[str, str, str]:
    """shape, dtype and size for numpy / pandas / anything with a tuple `shape` (torch, xarray, polars…)."""
    np, pd = module("numpy"), module("pandas")
    if pd is not None and isinstance(value, pd.DataFrame):
        dtypes = {str(d) for d in value.dtypes}
        dtype = dtypes.pop() if len(dtypes) == 1 else ("mixed" if dtypes else "")
        size = int(value.memory_usage(index=True, deep=False).sum())
        return str(tuple(value.shape)), dtype, format_size(size)
    if pd is not None and isinstance(value, pd.Series | pd.Index):
        return str(len(value)), str(value.dtype), format_size(int(value.memory_usage(deep=False)))
    if np is not None and isinstance(value, np.ndarray):
        return str(tuple(value.shape)), str(value.dtype), format_size(int(value.nbytes))
    shape: object = getattr(value, "shape", None)
    if _is_shape(shape):
        dtype = getattr(value, "dtype", "")
        nbytes = getattr(value, "nbytes", None)
        return str(shape), str(dtype), format_size(nbytes) if isinstance(nbytes, int) else ""
    return "", "", ""


def _facts(name: str, value: object) -> VariableFacts:
    kind = type(value)
    if kind in _SCALARS:
        shape = str(len(value)) if isinstance(value, str | bytes) else ""  # exactly str or bytes here
        size = format_size(sys.getsizeof(value))
        if names_credential(name):  # `token = "sk-…"`: its length and type, never its characters
            return VariableFacts(
                name=name, type_name=kind.__name__, shape=shape, size=size, note=CREDENTIAL_HIDDEN
            )
        return VariableFacts(
            name=name, type_name=kind.__name__, shape=shape, size=size, value=short_value(value)
        )
    if kind in _CONTAINERS:
        container = cast("Collection[object]", value)
        return VariableFacts(
            name=name,
            type_name=kind.__name__,
            shape=str(len(container)),
            size="~" + format_size(_container_size(container)),
        )
    shape, dtype, size = _array_like_facts(value)
    return VariableFacts(name=name, type_name=kind.__name__, shape=shape, dtype=dtype, size=size)


def describe_variable(name: str, value: Any, deadline: Deadline) -> VariableFacts:
    """Facts for one variable; anything that might run user code runs under the deadline."""
    if type(value) in _SCALARS:
        return _facts(name, value)
    type_name = type(value).__name__
    if deadline.expired():
        return VariableFacts(name=name, type_name=type_name, note="not inspected: time budget used up")
    outcome = deadline.call(lambda: _facts(name, value))
    if outcome.timed_out:
        return VariableFacts(
            name=name, type_name=type_name, note=f"facts did not finish in {deadline.per_call:g} s"
        )
    if outcome.error is not None or outcome.value is None:
        return VariableFacts(
            name=name, type_name=type_name, note=clip(f"facts failed: {outcome.error!r}", 80)
        )
    return outcome.value


def is_hidden(name: str, value: object) -> bool:
    """Names a person would not call their variables: private, IPython's own, modules."""
    return (
        name.startswith("_")
        or name in ("In", "Out", "exit", "quit", "get_ipython")
        or issubclass(type(value), types.ModuleType)
    )


def is_callable_kind(value: object) -> bool:
    """Functions, classes and other callables: hidden from the list unless asked for."""
    return issubclass(type(value), type) or callable(value)
