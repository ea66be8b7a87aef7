"""The session's checklist (TodoWrite's list): kept apart from the tool so the tool services can name it
without importing a tool."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

TodoStatus = Literal["pending", "in_progress", "completed"]


@dataclass(frozen=True, kw_only=True)
class Todo:
    content: str
    status: TodoStatus
    active_form: str

    def to_json(self) -> dict[str, str]:
        return {"content": self.content, "status": self.status, "activeForm": self.active_form}


class TodoList:
    """The session's current checklist; `version` grows with every change so a view can tell it moved."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: tuple[Todo, ...] = ()
        self.version = 0

    @property
    def items(self) -> tuple[Todo, ...]:
        with self._lock:
            return self._items

    def replace(self, items: Sequence[Todo]) -> None:
        with self._lock:
            self._items = tuple(items)
            self.version += 1

    def clear(self) -> None:
        self.replace(())

    def text(self) -> str:
        """`[x] done · [>] doing · [ ] to do`, one line each, for `%agent status` and terminals."""
        marks = {"completed": "[x]", "in_progress": "[>]", "pending": "[ ]"}
        return "\n".join(
            f"{marks[t.status]} {t.active_form if t.status == 'in_progress' else t.content}"
            for t in self.items
        )

    def counts(self) -> str:
        items = self.items
        done = sum(t.status == "completed" for t in items)
        return f"{done}/{len(items)} done"
