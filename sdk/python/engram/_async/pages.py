"""Iterators over paged lists: cursors (memory lists) and offsets (documents, Mode A queries)."""

from __future__ import annotations

from typing import Any, AsyncIterator, Callable, Optional


async def follow_cursor(fetch: Callable[[Optional[str]], Any], items: str) -> AsyncIterator[Any]:
    """Yields the records of every page, passing each page's `next_cursor` back until it is null."""
    cursor: Optional[str] = None
    while True:
        page = await fetch(cursor)
        for record in getattr(page, items):
            yield record
        cursor = page.next_cursor
        if not cursor:
            return


async def follow_offset(fetch: Callable[[int], Any], items: str, page_size: int) -> AsyncIterator[Any]:
    """Yields the records of every page, `offset += page_size` while the page says there is more
    (`has_more` where the route has it, else a full page)."""
    offset = 0
    while True:
        page = await fetch(offset)
        records = getattr(page, items)
        for record in records:
            yield record
        more = getattr(page, "has_more", len(records) >= page_size)
        if not more or not records:
            return
        offset += len(records)
