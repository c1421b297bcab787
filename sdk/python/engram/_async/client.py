"""The client, its tenant-wide routes (schema, query, erasure receipts) and partition handles."""

from __future__ import annotations

import time
from typing import Any, AsyncIterator, Callable, Mapping, Optional, Sequence, TypeVar, Union

import httpx
from pydantic import BaseModel

from .._core import (DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT, Attempts, Call, ResponseEvent, RetryEvent,
                     request_args, resolve_settings, seg)
from .._errors import EngramError, error_from_response
from .._models import (Document, ErasureReceipt, FieldList, Index, QueryDocuments, QueryGroups, QueryResult,
                       Status)
from .._transport import AsyncTransport
from .owner import AsyncOwner
from .pages import follow_offset

M = TypeVar("M", bound=BaseModel)


class AsyncTenantScope:
    """Routes that are tenant-wide, or partition-wide on a partition handle."""

    _client: AsyncEngram
    _partition: Optional[str]

    def _params(self, **extra: Any) -> dict[str, Any]:
        return {"partition": self._partition, **extra}

    async def declare_fields(self, fields: Sequence[Mapping[str, Any]]) -> FieldList:
        """Declares (or re-declares) fields by name, e.g. `{"name": "rating", "type": "int",
        "source": {"metadata": "rating"}}`; the others stay. Returns the whole declared set."""
        call = Call("PUT", "/v1/schema/fields", self._params(), json={"fields": list(fields)})
        return await self._client._model(call, FieldList)

    async def list_fields(self) -> FieldList:
        return await self._client._model(Call("GET", "/v1/schema/fields", self._params()), FieldList)

    async def remove_field(self, name: str) -> FieldList:
        return await self._client._model(Call("DELETE", f"/v1/schema/fields/{seg(name)}", self._params()), FieldList)

    async def wait_for_backfill(self, *names: str, timeout: float = 120.0, interval: float = 0.5) -> FieldList:
        """Polls until the named fields' backfill is `complete`; raises when one failed or time is up."""
        deadline = time.monotonic() + timeout
        while True:
            fields = await self.list_fields()
            pending = [f for f in fields.fields if f.name in names and f.backfill != "complete"]
            failed = [f"{f.name}: {f.backfill}" for f in pending if f.backfill.startswith("failed")]
            if failed:
                raise EngramError("backfill failed: " + "; ".join(failed))
            if not pending:
                return fields
            if time.monotonic() > deadline:
                raise EngramError(f"backfill not complete after {timeout} s: {[f.backfill for f in pending]}")
            await self._client._transport.sleep(interval)

    async def query(self, filter: Optional[Mapping[str, Any]] = None, *, sort: Optional[Sequence[Mapping[str, str]]] = None,
                    limit: Optional[int] = None, offset: Optional[int] = None,
                    group_by: Optional[Sequence[str]] = None,
                    aggregate: Optional[Sequence[Mapping[str, str]]] = None) -> Union[QueryDocuments, QueryGroups]:
        """Mode A (a page of documents) without `group_by`, Mode B (groups with their aggregates) with it.
        Narrow to one owner with the built-in field: `{"field": "entity_id", "op": "eq", "value": "user-42"}`."""
        request = {"filter": filter, "sort": sort, "limit": limit, "offset": offset, "group_by": group_by,
                   "aggregate": aggregate}
        call = Call("POST", "/v1/query", self._params(), json={k: v for k, v in request.items() if v is not None})
        return (await self._client._model(call, QueryResult)).root

    def iter_query(self, filter: Optional[Mapping[str, Any]] = None, *,
                   sort: Optional[Sequence[Mapping[str, str]]] = None, page_size: int = 100) -> AsyncIterator[Document]:
        """Every document a Mode A query matches, page after page."""
        async def page(offset: int) -> QueryDocuments:
            result = await self.query(filter, sort=sort, limit=page_size, offset=offset)
            if not isinstance(result, QueryDocuments):
                raise EngramError("iter_query takes Mode A queries only (no group_by)")
            return result
        return follow_offset(page, "documents", page_size)

    async def erasure(self, receipt_id: str) -> ErasureReceipt:
        """The receipt of an owner's erasure (`owner.erase()` gives its id)."""
        call = Call("GET", f"/v1/memory/erasures/{seg(receipt_id)}", self._params())
        return await self._client._model(call, ErasureReceipt)


class AsyncPartition(AsyncTenantScope):
    """`client.partition("p")`: schema, query and erasure receipts scoped to the partition; owners in it."""

    def __init__(self, client: AsyncEngram, partition: str):
        self._client = client
        self._partition = partition

    def owner(self, entity_id: str) -> AsyncOwner:
        return AsyncOwner(self._client, entity_id, self._partition)


class AsyncEngram(AsyncTenantScope):
    """The Engram client. `base_url` and `api_key` default to ENGRAM_BASE_URL and ENGRAM_API_KEY.

    Requests answered 429, 502 or 503, and connection failures, are retried up to `max_retries` times
    (0 disables) with exponential backoff and jitter, never sooner than the service's Retry-After.
    `on_retry` and `on_response` are called with a RetryEvent / ResponseEvent (for logging or metrics).
    """

    def __init__(self, base_url: Optional[str] = None, api_key: Optional[str] = None, *,
                 timeout: Union[float, httpx.Timeout] = DEFAULT_TIMEOUT, max_retries: int = DEFAULT_MAX_RETRIES,
                 on_retry: Optional[Callable[[RetryEvent], None]] = None,
                 on_response: Optional[Callable[[ResponseEvent], None]] = None,
                 http_client: Optional[httpx.AsyncClient] = None):
        self._settings = resolve_settings(base_url, api_key, timeout=timeout, max_retries=max_retries,
                                          on_retry=on_retry, on_response=on_response)
        self._transport = AsyncTransport(timeout, http_client)
        self._client = self
        self._partition = None

    @property
    def base_url(self) -> str:
        return self._settings.base_url

    def owner(self, entity_id: str, partition: Optional[str] = None) -> AsyncOwner:
        """A handle on one owner's memory, documents, media and search."""
        return AsyncOwner(self, entity_id, partition)

    def partition(self, partition: str) -> AsyncPartition:
        return AsyncPartition(self, partition)

    async def openapi(self) -> dict[str, Any]:
        """The service's OpenAPI 3.1 document."""
        return (await self._request(Call("GET", "/v1/openapi.json"))).json()

    async def status(self) -> Status:
        return await self._model(Call("GET", "/status"), Status)

    async def index(self) -> Index:
        return await self._model(Call("GET", "/"), Index)

    async def _model(self, call: Call, model: type[M]) -> M:
        return model.model_validate_json((await self._request(call)).content)

    async def _request(self, call: Call) -> httpx.Response:
        """Sends the call, retrying as the policy says; returns a success, raises a typed error otherwise.
        A streamed response (call.stream) is returned unread: the caller closes it."""
        attempts = Attempts(self._settings, call)
        while True:
            try:
                response = await self._transport.send(request_args(self._settings, call), call.stream)
            except httpx.TransportError as exc:
                await self._transport.sleep(attempts.after_exception(exc))
                continue
            attempts.record(response)
            if response.status_code < 400:
                return response
            content = await response.aread()
            await response.aclose()
            error = error_from_response(response.status_code, content, response.headers)
            await self._transport.sleep(attempts.after_error(error))

    async def aclose(self) -> None:
        await self._transport.aclose()

    async def __aenter__(self) -> AsyncEngram:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
