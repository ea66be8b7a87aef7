"""Copying a user's object before the agent's code may change it, sizing it first, and telling afterwards whether
it changed — each the cheap way for its type.

- **pandas** (DataFrame, Series, Index): `.copy(deep=True)` (the column arrays are copied; Python objects in an
  object column are shared, as pandas does). Size: `memory_usage(deep=False)`, what that copy allocates.
- **NumPy**: `.copy()`; size `nbytes`. **polars**: `.clone()`; size `estimated_size()`.
- **Arrow** (pyarrow tables, arrays, record batches) and JAX arrays are immutable: kept by reference, free.
- **Immutable values** (numbers, strings, bytes, tuples and frozensets of those): nothing to copy.
- **Anything else**: `copy.deepcopy`, one memo per call, so two names for one object stay one object; the
  size is a walk of its containers and attributes (`sys.getsizeof`), stopped once it passes the budget.

Not copied, with the reason: modules, functions and classes (their state is global), open files, sockets,
generators and coroutines, locks and threads, database connections, tensors on a GPU (and modules holding
them), and anything `deepcopy` refuses (said before the call when the walk meets it inside the object). Whether
an object changed, and what undo compares later, is `compare.py`'s.
"""

from __future__ import annotations

import copy
import io
import socket
import sys
import threading
import types
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal, cast

from ....base.kernel_journal import human_bytes

CopyWay = Literal["immutable", "pandas", "numpy", "polars", "deepcopy"]

_ATOMS: tuple[type, ...] = (
    type(None),
    bool,
    int,
    float,
    complex,
    str,
    bytes,
    range,
    type(Ellipsis),
    type(NotImplemented),
)
LOCK_TYPES: tuple[type, ...] = (type(threading.Lock()), type(threading.RLock()))
_UNCOPYABLE: tuple[tuple[tuple[type, ...], str], ...] = (
    ((types.ModuleType,), "a module"),
    ((types.FunctionType, types.BuiltinFunctionType, types.MethodType, type), "a function or class"),
    ((io.IOBase,), "an open file"),
    ((socket.socket,), "a socket"),
    ((types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType), "a generator"),
    ((*LOCK_TYPES, threading.Condition, threading.Event, threading.Semaphore), "a lock"),
    ((threading.Thread,), "a thread"),
    ((types.FrameType, types.TracebackType), "a frame"),
)
#: Modules whose objects are connections to a database (a copy would not copy the database).
_CONNECTION_MODULES = frozenset({"sqlite3", "psycopg", "psycopg2", "pymysql", "duckdb", "sqlalchemy"})
#: Objects of these kinds belong to the program, not the user's data: not journaled, and not said.
SILENT = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType, type)


@dataclass(frozen=True, kw_only=True)
class CopyPlan:
    """How an object would be kept: `way`, and the bytes its copy would take (0: nothing to copy)."""

    way: CopyWay
    nbytes: int = 0


@dataclass(frozen=True, kw_only=True)
class NotCopyable:
    """Why an object is not copied (`an open file cannot be copied`), or that it is larger than the budget."""

    why: str = ""
    #: Its size where it was counted (0: not counted).
    nbytes: int = 0
    over_budget: bool = False

    def reason(self, budget: int) -> str:
        """`1.2 GB, more than the 512 MB kernel_undo_budget_mb allows`, `an open file cannot be copied`."""
        why = (
            f"more than the {human_bytes(budget)} kernel_undo_budget_mb allows"
            if self.over_budget
            else self.why
        )
        return f"{human_bytes(self.nbytes)}, {why}" if self.nbytes else why


def _module_of(obj: object) -> str:
    return type(obj).__module__.split(".")[0]


def is_pandas(obj: object) -> bool:
    return _module_of(obj) == "pandas" and hasattr(obj, "memory_usage") and hasattr(obj, "copy")


def is_numpy(obj: object) -> bool:
    return (
        _module_of(obj) == "numpy"
        and hasattr(obj, "nbytes")
        and hasattr(obj, "copy")
        and hasattr(obj, "shape")
    )


def is_polars(obj: object) -> bool:
    return _module_of(obj) == "polars" and hasattr(obj, "clone") and hasattr(obj, "estimated_size")


def _is_immutable_columnar(obj: object) -> bool:
    """Arrow tables and arrays, JAX arrays: no operation changes them in place."""
    module = _module_of(obj)
    return module == "pyarrow" or (module in ("jax", "jaxlib") and hasattr(obj, "shape"))


def _on_a_gpu(obj: object) -> str | None:
    """`a tensor on cuda:0` for torch / CuPy objects whose memory is on a device, else None."""
    module = _module_of(obj)
    if module == "cupy":
        return "an array on the GPU"
    if module != "torch":
        return None
    device = getattr(obj, "device", None)
    if device is not None and getattr(device, "type", "cpu") != "cpu":
        return f"a tensor on {device}"
    parameters = getattr(obj, "parameters", None)
    if callable(parameters):
        for parameter in cast(Iterator[Any], parameters()):
            where = getattr(parameter, "device", None)
            if where is not None and getattr(where, "type", "cpu") != "cpu":
                return f"a model on {where}"
    return None


def is_immutable(obj: object, depth: int = 0) -> bool:
    """True for values no code can change in place (a tuple of numbers; not a tuple holding a list)."""
    if isinstance(obj, _ATOMS):
        return True
    if isinstance(obj, tuple | frozenset):
        items = cast(tuple[Any, ...], obj)
        return depth < 4 and len(items) <= 1000 and all(is_immutable(item, depth + 1) for item in items)
    return _is_immutable_columnar(obj)


def plan_copy(obj: object, limit: int) -> CopyPlan | NotCopyable:
    """How `obj` would be copied and how large the copy is; NotCopyable when it cannot be (it is, or holds, what
    cannot be copied), or would take more than `limit` bytes."""
    if is_immutable(obj):
        return CopyPlan(way="immutable")
    blocker = _uncopyable(obj)
    if blocker is not None:
        nbytes = size_of(obj, limit) if blocker.startswith(("a tensor", "a model", "an array")) else 0
        return NotCopyable(why=f"{blocker} cannot be copied", nbytes=nbytes)
    way: CopyWay
    if is_pandas(obj):
        way = "pandas"
    elif is_numpy(obj):
        way = "numpy"
    elif is_polars(obj):
        way = "polars"
    else:
        way = "deepcopy"
    measured = measure(obj, limit)
    if measured.blocker is not None:
        return NotCopyable(why=f"it holds {measured.blocker}, which cannot be copied")
    if measured.nbytes > limit:
        return NotCopyable(nbytes=measured.nbytes, over_budget=True)
    return CopyPlan(way=way, nbytes=measured.nbytes)


def _uncopyable(obj: object) -> str | None:
    """What `obj` is when it is a kind of object no copy can take (`an open file`), else None."""
    for kinds, what in _UNCOPYABLE:
        if isinstance(obj, kinds):
            return what
    if _module_of(obj) in _CONNECTION_MODULES:
        return "a database connection"
    return _on_a_gpu(obj)


def take_copy(obj: object, way: CopyWay, memo: dict[int, Any]) -> object:
    """The copy (raises what the copy raises: a TypeError for what cannot be pickled or copied)."""
    any_obj = cast(Any, obj)
    if way == "immutable":
        return obj
    if way == "pandas":
        return any_obj.copy(deep=True)
    if way == "numpy":
        return any_obj.copy()
    if way == "polars":
        return any_obj.clone()
    return copy.deepcopy(obj, memo)


@dataclass(frozen=True)
class Measure:
    nbytes: int
    #: What inside the object a deepcopy would refuse (`an open file`), found while counting; None: nothing.
    blocker: str | None = None


def size_of(obj: object, limit: int) -> int:
    """Bytes `obj` takes with what it holds (containers, attributes), counted until the count passes `limit`."""
    return measure(obj, limit).nbytes


def measure(obj: object, limit: int) -> Measure:
    """`size_of`, and the first thing inside `obj` a deepcopy would refuse: walked through containers and the
    attributes of objects that copy the default way (one with its own `__deepcopy__` or pickling decides)."""
    seen: set[int] = set()
    stack: list[tuple[object, bool]] = [(obj, True)]
    total = 0
    blocker: str | None = None
    while stack and total <= limit:
        item, plain = stack.pop()
        if id(item) in seen or isinstance(item, SILENT):
            continue
        seen.add(id(item))
        if item is not obj and plain and blocker is None:
            blocker = _uncopyable(item)
        counted = _sized(item)
        if counted is not None:
            total += counted
            continue
        total += sys.getsizeof(item, 0)
        plain = plain and _copies_by_default(item)
        stack.extend((held, plain) for held in _held_by(item))
    return Measure(total, blocker)


def _sized(item: object) -> int | None:
    """The size of an array-like by its own count (its buffers), None for anything else."""
    any_item = cast(Any, item)
    try:
        if is_pandas(item):
            usage = any_item.memory_usage(deep=False)
            return int(usage.sum()) if hasattr(usage, "sum") else int(usage)
        if is_numpy(item):
            return int(any_item.nbytes)
        if is_polars(item):
            return int(any_item.estimated_size())
        if _module_of(item) == "torch" and hasattr(item, "element_size"):
            return int(any_item.element_size() * any_item.nelement())
    except Exception:  # an object whose size cannot be asked: counted by its shell
        return sys.getsizeof(item, 0)
    return None


def _copies_by_default(obj: object) -> bool:
    """True when deepcopy copies `obj` attribute by attribute (no `__deepcopy__`, pickling of its own)."""
    kind = type(obj)
    if isinstance(obj, dict | list | tuple | set | frozenset):
        return True
    return (
        not hasattr(kind, "__deepcopy__")
        and kind.__reduce_ex__ is object.__reduce_ex__
        and kind.__reduce__ is object.__reduce__
        and getattr(kind, "__getstate__", object.__getstate__) is object.__getstate__
    )


def _held_by(obj: object) -> list[object]:
    if isinstance(obj, dict):
        mapping = cast(dict[Any, Any], obj)
        return [*mapping.keys(), *mapping.values()]
    if isinstance(obj, list | tuple | set | frozenset):
        return list(cast(list[Any], obj))
    if isinstance(obj, _ATOMS):
        return []
    held: list[object] = []
    attributes: object = getattr(obj, "__dict__", None)
    if isinstance(attributes, dict):
        held.append(cast(object, attributes))
    held.extend(getattr(obj, slot) for slot in slots_of(obj) if hasattr(obj, slot))
    return held


def slots_of(obj: object) -> list[str]:
    """The names in its class's `__slots__`: attributes its `__dict__` does not list."""
    declared: object = getattr(type(obj), "__slots__", ())
    names: object = [declared] if isinstance(declared, str) else declared
    if not isinstance(names, tuple | list):
        return []
    return [
        n for n in cast(list[object], names) if isinstance(n, str) and n not in ("__dict__", "__weakref__")
    ]
