"""What a conversation told the model since the last `told` record, written as its changes.

Why: `told` holds every tool definition the model knows (tens of KB) next to a few facts, and most changes are a
fact or two (a mode, the kernel after a restart). A session file writes the whole of it once (its first `told`
record) and then only what changed (`told_changes` records), so a resumed session's file, which starts from the
`told` of the file it continues, adds only what its own runs told.

A record of changes: `set` replaces whole values (`binding`, `betas`, `opening`, a key that appeared or went
away as `None`); `entries` changes the named entries of a mapping (`facts`, `tools`): `set` ones and `removed` ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..base.json_values import is_array, is_object


def told_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """The changes from `before` to `after` (both `Told.to_json()`); empty when they are equal."""
    whole: dict[str, Any] = {}
    entries: dict[str, Any] = {}
    for key in [*after, *(k for k in before if k not in after)]:
        old, new = before.get(key), after.get(key)
        if old == new:
            continue
        if is_object(old) and is_object(new):
            entries[key] = {
                "set": {k: v for k, v in new.items() if k not in old or old[k] != v},
                "removed": [k for k in old if k not in new],
            }
        else:
            whole[key] = new
    changes: dict[str, Any] = {}
    if whole:
        changes["set"] = whole
    if entries:
        changes["entries"] = entries
    return changes


def with_told_changes(told: Mapping[str, Any] | None, changes: Mapping[str, Any]) -> dict[str, Any]:
    """`told` (None: nothing told yet) with a `told_changes` record applied; malformed parts are ignored."""
    result = dict(told or {})
    whole, entries = changes.get("set"), changes.get("entries")
    if is_object(whole):
        result.update(whole)
    if is_object(entries):
        for key, change in entries.items():
            if not is_object(change):
                continue
            current = result.get(key)
            merged = dict(current) if is_object(current) else {}
            added, removed = change.get("set"), change.get("removed")
            if is_object(added):
                merged.update(added)
            if is_array(removed):
                for name in removed:
                    if isinstance(name, str):
                        merged.pop(name, None)
            result[key] = merged
    return result


def told_after(told: Mapping[str, Any] | None, record: Mapping[str, Any]) -> dict[str, Any]:
    """What was told after a `told` record (the whole of it) or a `told_changes` record (applied to `told`)."""
    if record.get("type") == "told":
        return {k: v for k, v in record.items() if k != "type"}
    return with_told_changes(told, record)
