"""Whether an object changed: against its copy after the call (`same_value`), and against what the call left,
at undo time (`digest`), without a second copy.

- `same_value`: the type's own equality (pandas `.equals` with the labels, name and attrs; NumPy
  `array_equal` with NaN equal to NaN; polars `.equals`), or the structure of objects that compare by identity
  (their attributes, compared the same way). False when it cannot tell: the safe answer is "changed".
- `digest` / `fingerprint`: a hash of the object's pickle, its array buffers checked where they lie (protocol 5,
  out of band; a CRC-32 each), so a 100 MB frame costs a pass over its memory, not a copy; a `bytearray` or
  `array.array` is checked the same way (pickle would copy it in band). What plain pickling refuses (a lambda, a
  class, a lock) is pickled as its identity. `limit` bounds the pickled bytes; buffers, checked at CRC-32
  speed, are bounded apart by `BUFFER_LIMIT` (a memory-mapped file is not read from disk to the end). When no
  digest can be taken, `fingerprint` says why: undo then cannot rule out a later change, and says so.
"""

from __future__ import annotations

import array
import hashlib
import io
import mmap
import pickle
import socket
import zlib
from typing import Any, cast

from ....base.kernel_journal import human_bytes
from .copies import LOCK_TYPES, SILENT, is_numpy, is_pandas, is_polars, slots_of

#: Buffers (an array's memory, a bytearray) are checked up to this many bytes in all, when a limit is given.
BUFFER_LIMIT = 1024 * 1024 * 1024
#: Kinds of buffer pickle would copy into its stream: checked in place instead.
_PLAIN_BUFFERS = (bytearray, array.array, memoryview, mmap.mmap)


def same_value(a: object, b: object, depth: int = 0) -> bool:
    """True when `b` holds what `a` held (a copy and the object after the call): the type's own equality, or its
    structure for objects that compare by identity. False when it cannot tell (the safe answer)."""
    if a is b:
        return True
    if type(a) is not type(b) or depth > 50:
        return False
    any_a, any_b = cast(Any, a), cast(Any, b)
    try:
        if is_pandas(a):
            return (
                bool(any_a.equals(any_b))
                and getattr(a, "name", None) == getattr(b, "name", None)
                and dict(getattr(a, "attrs", {})) == dict(getattr(b, "attrs", {}))
                and _same_labels(a, b)
            )
        if is_numpy(a):
            return _same_array(a, b)
        if is_polars(a):
            return bool(any_a.equals(any_b))
        if isinstance(a, list | tuple):
            seq_a, seq_b = cast(list[Any], a), cast(list[Any], b)
            return len(seq_a) == len(seq_b) and (
                _equal(seq_a, seq_b)
                or all(same_value(x, y, depth + 1) for x, y in zip(seq_a, seq_b, strict=True))
            )
        if isinstance(a, dict):
            map_a, map_b = cast(dict[Any, Any], a), cast(dict[Any, Any], b)
            return list(map_a) == list(map_b) and (
                _equal(map_a, map_b) or all(same_value(map_a[k], map_b[k], depth + 1) for k in map_a)
            )
        if type(a).__eq__ is not object.__eq__:
            return _equal(a, b)
        state_a: object = getattr(a, "__dict__", None)
        state_b: object = getattr(b, "__dict__", None)
        if isinstance(state_a, dict) and isinstance(state_b, dict):
            return same_value(cast(object, state_a), cast(object, state_b), depth + 1) and _same_slots(
                a, b, depth
            )
        return False
    except Exception:
        return False


def _equal(a: object, b: object) -> bool:
    try:
        return (a == b) is True
    except Exception:
        return False


def _same_array(a: object, b: object) -> bool:
    import numpy as np

    array_a, array_b = cast(Any, a), cast(Any, b)
    if array_a.shape != array_b.shape or array_a.dtype != array_b.dtype:
        return False
    try:
        return bool(np.array_equal(array_a, array_b, equal_nan=True))
    except TypeError:  # equal_nan needs a numeric dtype
        return bool(np.array_equal(array_a, array_b))


def _same_labels(a: object, b: object) -> bool:
    for labels in ("index", "columns"):
        left, right = getattr(a, labels, None), getattr(b, labels, None)
        if left is not None and right is not None and not bool(left.equals(right)):
            return False
    return True


def _same_slots(a: object, b: object, depth: int) -> bool:
    for slot in slots_of(a):
        if hasattr(a, slot) != hasattr(b, slot):
            return False
        if hasattr(a, slot) and not same_value(getattr(a, slot), getattr(b, slot), depth + 1):
            return False
    return True


class _TooLarge(Exception):
    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


class _HashWriter:
    """A file for the pickler that hashes what it is given instead of keeping it, up to its limits."""

    def __init__(self, limit: int | None) -> None:
        self.hash = hashlib.sha1(usedforsecurity=False)
        self.limit = limit
        self.buffer_limit = None if limit is None else BUFFER_LIMIT
        self.count = 0
        self.buffered = 0

    def add_buffer(self, data: memoryview) -> None:
        """An array's memory: its CRC-32 and length go into the hash (a pass over 100 MB in ~0.1 s, half of
        SHA-1's time; a change the user makes slips through a 32-bit check once in four billion)."""
        self.buffered += data.nbytes
        if self.buffer_limit is not None and self.buffered > self.buffer_limit:
            raise _TooLarge(f"its memory is over the {human_bytes(self.buffer_limit)} undo checks")
        self.hash.update(data.nbytes.to_bytes(8, "little") + zlib.crc32(data).to_bytes(4, "little"))

    def write(self, data: bytes) -> int:
        self.count += len(data)
        if self.limit is not None and self.count > self.limit:
            raise _TooLarge(f"its pickle is over the {human_bytes(self.limit)} undo checks")
        self.hash.update(data)
        return len(data)


class _ByIdentity(pickle.Pickler):
    """Pickles what plain pickling refuses (functions, classes, modules, local objects) as their identity."""

    def persistent_id(self, obj: Any) -> Any:  # pyright: ignore[reportIncompatibleMethodOverride]
        if isinstance(obj, (*SILENT, *LOCK_TYPES, io.IOBase, socket.socket)):
            return ("id", id(obj))
        return None


def digest(obj: object, limit: int | None = None) -> bytes | None:
    """`fingerprint`'s digest, or None when it could not be taken."""
    found = fingerprint(obj, limit)
    return found if isinstance(found, bytes) else None


def fingerprint(obj: object, limit: int | None = None) -> bytes | str:
    """A hash of `obj`'s state (its pickle, array buffers hashed in place), to tell later whether it changed; or
    why none could be taken (`it cannot be pickled to compare: TypeError: …`, `its pickle is over the 16 MB
    undo checks`)."""
    if isinstance(obj, _PLAIN_BUFFERS):
        return _buffer_fingerprint(cast(object, obj), limit)
    refused = ""
    for pickler in (pickle.Pickler, _ByIdentity):
        writer = _HashWriter(limit)

        def out_of_band(buffer: pickle.PickleBuffer, writer: _HashWriter = writer) -> bool:
            try:
                raw = buffer.raw()
            except BufferError:  # not contiguous: pickled in band, like any bytes
                return True
            with raw:
                writer.add_buffer(raw)
            return False

        try:
            pickler(writer, protocol=5, buffer_callback=out_of_band).dump(obj)
        except _TooLarge as exc:
            return exc.what
        except (
            Exception
        ) as exc:  # unpicklable (a lambda, a local class …): try again by identity, then give up
            refused = refused or f"it cannot be pickled to compare: {type(exc).__name__}: {exc}"
            continue
        return writer.hash.digest()
    return refused


def _buffer_fingerprint(obj: object, limit: int | None) -> bytes | str:
    """A bytearray's (an array.array's, a memoryview's, an mmap's) type, layout and the CRC-32 of its memory."""
    writer = _HashWriter(limit)
    try:
        with memoryview(cast(Any, obj)) as view:
            layout = (type(obj).__qualname__, view.format, view.shape, getattr(obj, "typecode", ""))
            writer.write(repr(layout).encode())
            if view.contiguous:
                with view.cast("B") as flat:
                    writer.add_buffer(flat)
            else:
                writer.add_buffer(memoryview(view.tobytes()))
    except _TooLarge as exc:
        return exc.what
    except (ValueError, TypeError) as exc:  # a released view, a closed mmap
        return f"its memory cannot be read to compare: {type(exc).__name__}: {exc}"
    return writer.hash.digest()
