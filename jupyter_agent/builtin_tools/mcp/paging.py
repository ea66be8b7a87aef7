"""Every item of a paginated MCP list, for the tool and resource listings."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

_LIST_PAGES = 50


async def pages(
    fetch: Callable[[str | None], Awaitable[Any]], field: str, limit: int = _LIST_PAGES
) -> list[Any]:
    """Every item of a paginated MCP list (`tools`, `resources`, …), following `next_cursor` up to `limit` pages."""
    items: list[Any] = []
    cursor: str | None = None
    for _ in range(limit):
        page = await fetch(cursor)
        items.extend(getattr(page, field))
        cursor = page.next_cursor
        if cursor is None:
            break
    return items
