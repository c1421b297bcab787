"""The owner handle, `client.owner("user-42", partition=...)`: one owner's data."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from .documents import AsyncDocuments
from .memory import AsyncMemory

if TYPE_CHECKING:
    from .client import AsyncEngram


class AsyncOwner(AsyncMemory, AsyncDocuments):
    """Memory (entities, relationships, facts), documents, media and search of one owner (`entity_id`)."""

    def __init__(self, client: AsyncEngram, entity_id: str, partition: Optional[str] = None):
        self._client = client
        self.entity_id = entity_id
        self.partition = partition

    def __repr__(self) -> str:
        return f"Owner(entity_id={self.entity_id!r}, partition={self.partition!r})"
