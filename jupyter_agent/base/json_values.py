"""Typed views of JSON values that arrive untyped: API error bodies, saved records, notebook JSON, tool schemas.

`isinstance(value, dict)` leaves a checker with a dict of unknown keys and values, and that unknown spreads
into every use. JSON objects always have string keys, so these guards state that once: after `is_object(v)`,
`v` is a `dict[str, Any]` and after `is_array(v)` a `list[Any]`; each value is still checked where it is used.
"""

from __future__ import annotations

from typing import Any, TypeGuard


def is_object(value: object) -> TypeGuard[dict[str, Any]]:
    """True for a JSON object (a dict)."""
    return isinstance(value, dict)


def is_array(value: object) -> TypeGuard[list[Any]]:
    """True for a JSON array (a list)."""
    return isinstance(value, list)
