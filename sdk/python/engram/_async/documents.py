"""An owner's documents, media and search."""

from __future__ import annotations

from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, AsyncIterator, Literal, Mapping, Optional, Sequence, Union

from .._core import Call, OwnerScope, body, seg, write_call
from .._filters import SearchOptions
from .._media import MediaSource, media_fields
from .._models import BatchSearchResults, Document, DocumentList, EmbedSearchResults, Media, SearchResults
from .pages import follow_offset

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .client import AsyncEngram

Scalar = Union[str, int, float, bool, None]


class AsyncDocuments(OwnerScope):
    _client: AsyncEngram

    # Documents
    async def create_document(self, content: str, *, title: Optional[str] = None,
                              content_type: Optional[Literal["text/plain", "text/markdown"]] = None,
                              metadata: Optional[Mapping[str, Scalar]] = None, tags: Optional[Sequence[str]] = None,
                              source: Optional[str] = None, readers: Optional[Sequence[str]] = None,
                              idempotency_key: Optional[str] = None) -> Document:
        json = body(content=content, title=title, content_type=content_type, metadata=metadata, tags=tags, source=source)
        call = write_call("POST", "/v1/documents", idempotency_key, params=self._scope(readers=readers), json=json)
        return await self._client._model(call, Document)

    async def create_documents(self, documents: Sequence[Mapping[str, Any]], *,
                               idempotency_key: Optional[str] = None) -> DocumentList:
        """Creates 1 to 100 documents (each the body of `create_document`, plus `readers`), all or nothing."""
        call = write_call("POST", "/v1/documents/batch", idempotency_key, params=self._scope(),
                          json={"documents": [body(**d) for d in documents]})
        return await self._client._model(call, DocumentList)

    async def get_document(self, doc_id: str) -> Document:
        return await self._client._model(Call("GET", f"/v1/documents/{seg(doc_id)}", self._scope()), Document)

    async def list_documents(self, *, limit: Optional[int] = None, offset: Optional[int] = None,
                             include_deleted: Optional[bool] = None) -> DocumentList:
        """One page of the owner's documents, newest first."""
        call = Call("GET", "/v1/documents", self._scope(limit=limit, offset=offset, include_deleted=include_deleted))
        return await self._client._model(call, DocumentList)

    def iter_documents(self, *, page_size: int = 100, include_deleted: Optional[bool] = None) -> AsyncIterator[Document]:
        return follow_offset(lambda offset: self.list_documents(limit=page_size, offset=offset,
                                                                include_deleted=include_deleted),
                             "documents", page_size)

    async def download_document(self, doc_id: str, dest: Union[IO[bytes], str, Path]) -> int:
        """Streams the document's original bytes into a binary file object or a path; returns the byte count."""
        response = await self._client._request(
            Call("GET", f"/v1/documents/{seg(doc_id)}/download", self._scope(), stream=True))
        out = open(dest, "wb") if isinstance(dest, (str, Path)) else dest
        written = 0
        try:
            async for chunk in response.aiter_bytes():
                out.write(chunk)
                written += len(chunk)
        finally:
            await response.aclose()
            if out is not dest:
                out.close()
        return written

    async def delete_document(self, doc_id: str, *, hard: bool = False) -> Optional[Document]:
        """Soft-deletes (returns the record, restorable) or, with `hard=True`, removes it for good (None)."""
        response = await self._client._request(
            Call("DELETE", f"/v1/documents/{seg(doc_id)}", self._scope(hard=True if hard else None)))
        return None if response.status_code == 204 else Document.model_validate_json(response.content)

    async def restore_document(self, doc_id: str, *, idempotency_key: Optional[str] = None) -> Document:
        call = write_call("POST", f"/v1/documents/{seg(doc_id)}/restore", idempotency_key, params=self._scope())
        return await self._client._model(call, Document)

    # Media
    async def upload_media(self, data: MediaSource, *, caption: Optional[str] = None,
                           transcript: Optional[str] = None, content_type: Optional[str] = None,
                           filename: Optional[str] = None, modality: Optional[Literal["image", "audio"]] = None,
                           tags: Optional[Sequence[str]] = None, metadata: Optional[Mapping[str, Scalar]] = None,
                           source: Optional[str] = None, readers: Optional[Sequence[str]] = None,
                           idempotency_key: Optional[str] = None) -> Media:
        """Stores an image or audio from a file path or bytes. The content type is sniffed from the bytes
        (or the extension) unless given; without caption/transcript the service derives the text."""
        json = {**media_fields(data, content_type, filename, modality),
                **body(caption=caption, transcript=transcript, tags=tags, metadata=metadata, source=source)}
        call = write_call("POST", "/v1/memory/media", idempotency_key, params=self._scope(readers=readers), json=json)
        return await self._client._model(call, Media)

    # Search
    async def search(self, q: str, *, mode: Optional[Literal["hybrid", "semantic", "lexical"]] = None,
                     **options: Unpack[SearchOptions]) -> SearchResults:
        call = Call("GET", "/v1/search", self._scope(q=q, mode=mode, **options))
        return await self._client._model(call, SearchResults)

    async def recall(self, q: str, **options: Unpack[SearchOptions]) -> SearchResults:
        """Search in the service's default mode (hybrid)."""
        return await self.search(q, **options)

    async def search_by_vector(self, vector: Sequence[float], **options: Unpack[SearchOptions]) -> EmbedSearchResults:
        """Search by an embedding of the index's dimension."""
        call = Call("POST", "/v1/search/embed", self._scope(), json={"vector": list(vector), **options})
        return await self._client._model(call, EmbedSearchResults)

    async def search_batch(self, queries: Sequence[Union[str, Mapping[str, Any]]]) -> BatchSearchResults:
        """Up to 32 searches at once: each a query string or `{"q": ..., "k": ..., "mode": ...}`."""
        items = [{"q": q} if isinstance(q, str) else dict(q) for q in queries]
        call = Call("POST", "/v1/search/batch", self._scope(), json={"queries": items})
        return await self._client._model(call, BatchSearchResults)
