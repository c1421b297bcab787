"""An owner's memory: entities, relationships, facts, consolidation, export, import and erasure."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, AsyncIterator, Iterable, Literal, Mapping, Optional, Sequence, Union

from .._core import Call, OwnerScope, body, seg, write_call
from .._filters import EntityFilters, FactFilters, RelationshipFilters, Timestamp
from .._models import (ConsolidationReport, Entity, EntityList, ErasureAccepted, ErasureReceipt, Fact, FactList,
                       ForgetReport, ImportReport, MemoryBatchResult, MemoryGraph, Relationship, RelationshipList)
from .._operations import MemoryOperation, operation_json
from .pages import follow_cursor

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .client import AsyncEngram

Scalar = Union[str, int, float, bool, None]


class AsyncMemory(OwnerScope):
    _client: AsyncEngram

    # Entities
    async def upsert_entity(self, entity_type: str, *, memory_entity_id: Optional[str] = None,
                            display_name: Optional[str] = None, aliases: Optional[Sequence[str]] = None,
                            attributes: Optional[Mapping[str, Scalar]] = None,
                            idempotency_key: Optional[str] = None) -> Entity:
        """Creates a node, or updates the one `memory_entity_id` names."""
        json = body(entity_type=entity_type, memory_entity_id=memory_entity_id, display_name=display_name,
                    aliases=aliases, attributes=attributes)
        call = write_call("POST", "/v1/memory/entities", idempotency_key, params=self._scope(), json=json)
        return await self._client._model(call, Entity)

    async def get_entity(self, memory_entity_id: str) -> Entity:
        return await self._client._model(Call("GET", f"/v1/memory/entities/{seg(memory_entity_id)}", self._scope()), Entity)

    async def list_entities(self, *, limit: Optional[int] = None, cursor: Optional[str] = None,
                            **filters: Unpack[EntityFilters]) -> EntityList:
        """One page, by creation; pass the page's `next_cursor` as `cursor` for the next one."""
        call = Call("GET", "/v1/memory/entities", self._scope(limit=limit, cursor=cursor, **filters))
        return await self._client._model(call, EntityList)

    def iter_entities(self, *, page_size: Optional[int] = None, **filters: Unpack[EntityFilters]) -> AsyncIterator[Entity]:
        """Every entity matching the filters, following the cursors page after page."""
        return follow_cursor(lambda cursor: self.list_entities(limit=page_size, cursor=cursor, **filters), "entities")

    async def forget_entity(self, memory_entity_id: str) -> ForgetReport:
        """Erases the node, its edges and every fact about them, with their history."""
        call = Call("DELETE", f"/v1/memory/entities/{seg(memory_entity_id)}", self._scope())
        return await self._client._model(call, ForgetReport)

    # Relationships
    async def upsert_relationship(self, from_entity_id: str, to_entity_id: str, relationship_type: str, *,
                                  relationship_id: Optional[str] = None,
                                  attributes: Optional[Mapping[str, Scalar]] = None,
                                  valid_from: Optional[Timestamp] = None,
                                  idempotency_key: Optional[str] = None) -> Relationship:
        json = body(from_entity_id=from_entity_id, to_entity_id=to_entity_id, relationship_type=relationship_type,
                    relationship_id=relationship_id, attributes=attributes, valid_from=valid_from)
        call = write_call("POST", "/v1/memory/relationships", idempotency_key, params=self._scope(), json=json)
        return await self._client._model(call, Relationship)

    async def list_relationships(self, *, limit: Optional[int] = None, cursor: Optional[str] = None,
                                 **filters: Unpack[RelationshipFilters]) -> RelationshipList:
        call = Call("GET", "/v1/memory/relationships", self._scope(limit=limit, cursor=cursor, **filters))
        return await self._client._model(call, RelationshipList)

    def iter_relationships(self, *, page_size: Optional[int] = None,
                           **filters: Unpack[RelationshipFilters]) -> AsyncIterator[Relationship]:
        return follow_cursor(lambda cursor: self.list_relationships(limit=page_size, cursor=cursor, **filters),
                             "relationships")

    async def retract_relationship(self, relationship_id: str) -> Relationship:
        call = Call("DELETE", f"/v1/memory/relationships/{seg(relationship_id)}", self._scope())
        return await self._client._model(call, Relationship)

    # Facts
    async def assert_fact(self, predicate: str, value: Scalar, *,
                          subject_type: Optional[Literal["owner", "entity", "relationship"]] = None,
                          subject_id: Optional[str] = None, cardinality: Optional[Literal["single", "multi"]] = None,
                          valid_from: Optional[Timestamp] = None, observed_at: Optional[Timestamp] = None,
                          supersedes_fact_id: Optional[str] = None, idempotency_key: Optional[str] = None) -> Fact:
        """Asserts a fact (about the owner unless `subject_type` says otherwise). A `single` fact
        supersedes the active one with the same subject and predicate."""
        json = body(predicate=predicate, subject_type=subject_type, subject_id=subject_id, cardinality=cardinality,
                    valid_from=valid_from, observed_at=observed_at, supersedes_fact_id=supersedes_fact_id)
        json["value"] = value  # null is a value here
        call = write_call("POST", "/v1/memory/facts", idempotency_key, params=self._scope(), json=json)
        return await self._client._model(call, Fact)

    async def list_facts(self, *, limit: Optional[int] = None, cursor: Optional[str] = None,
                         **filters: Unpack[FactFilters]) -> FactList:
        """One page of facts, newest observation first; `as_of=` gives what was known at that time."""
        call = Call("GET", "/v1/memory/facts", self._scope(limit=limit, cursor=cursor, **filters))
        return await self._client._model(call, FactList)

    def iter_facts(self, *, page_size: Optional[int] = None, **filters: Unpack[FactFilters]) -> AsyncIterator[Fact]:
        return follow_cursor(lambda cursor: self.list_facts(limit=page_size, cursor=cursor, **filters), "facts")

    def fact_history(self, predicate: str, *, subject_type: Literal["owner", "entity", "relationship"] = "owner",
                     subject_id: Optional[str] = None) -> AsyncIterator[Fact]:
        """The chain of one subject's predicate, oldest observation first."""
        return self.iter_facts(predicate=predicate, subject_type=subject_type, history=True,
                               **({"subject_id": subject_id} if subject_id else {}))

    async def retract_fact(self, fact_id: str) -> Fact:
        return await self._client._model(Call("DELETE", f"/v1/memory/facts/{seg(fact_id)}", self._scope()), Fact)

    async def consolidate(self, *, idempotency_key: Optional[str] = None) -> ConsolidationReport:
        """Retracts redundant active facts (same subject, predicate and normalised value)."""
        call = write_call("POST", "/v1/memory/consolidate", idempotency_key, params=self._scope(), json={})
        return await self._client._model(call, ConsolidationReport)

    # The graph around a node
    async def graph(self, memory_entity_id: str, *, depth: Optional[int] = None,
                    direction: Optional[Literal["both", "outgoing", "incoming"]] = None,
                    relationship_type: Optional[str] = None, as_of: Optional[Timestamp] = None,
                    include_facts: Optional[bool] = None) -> MemoryGraph:
        """The neighbourhood of a node: the nodes reached over at most `depth` edges (default 1, at most 3)
        followed in `direction`, and every edge between them; now, or as the service knew it `as_of` an
        instant. `include_facts=True` adds the facts active then about them (`facts` is None otherwise)."""
        call = Call("GET", "/v1/memory/graph", self._scope(
            memory_entity_id=memory_entity_id, depth=depth, direction=direction,
            relationship_type=relationship_type, as_of=as_of, include_facts=include_facts))
        return await self._client._model(call, MemoryGraph)

    # Many writes at once
    async def batch(self, operations: Sequence[Union[MemoryOperation, Mapping[str, Any]]], *,
                    idempotency_key: Optional[str] = None) -> MemoryBatchResult:
        """1 to 1,000 writes applied in order, all or nothing, in one transaction: each an operation model
        (`UpsertEntityOperation(entity_type="person", memory_entity_id="ann")`, `UpsertRelationshipOperation`,
        `AssertFactOperation`, `RetractFactOperation(fact_id=...)`, `RetractRelationshipOperation`) or the
        same as a mapping with its `op`. Later operations may name what earlier ones wrote by the ids the
        caller gave. `results` holds each operation's record in order, an `Entity`, `Relationship` or `Fact`
        (`isinstance` tells which). The first operation refused raises, naming `operations[i]`, and nothing
        of the batch is stored."""
        json = {"operations": [operation_json(op) for op in operations]}
        call = write_call("POST", "/v1/memory/batch", idempotency_key, params=self._scope(), json=json)
        return await self._client._model(call, MemoryBatchResult)

    # The owner as a whole
    async def export_lines(self) -> AsyncIterator[str]:
        """The owner's records as NDJSON lines (`{"type": ..., "record": ...}`), streamed."""
        response = await self._client._request(Call("GET", "/v1/memory/export", self._scope(), stream=True))
        try:
            async for line in response.aiter_lines():
                if line.strip():
                    yield line
        finally:
            await response.aclose()

    async def import_lines(self, lines: Union[Iterable[Union[str, bytes]], bytes, str], *,
                           idempotency_key: Optional[str] = None) -> ImportReport:
        """Imports an export (its lines, or the NDJSON as one string/bytes) into this owner, which must be empty."""
        if isinstance(lines, (str, bytes)):
            content = lines.encode() if isinstance(lines, str) else lines
        else:
            content = b"".join((ln.encode() if isinstance(ln, str) else ln).rstrip(b"\n") + b"\n" for ln in lines)
        call = write_call("POST", "/v1/memory/import", idempotency_key, params=self._scope(), content=content,
                          content_type="application/x-ndjson")
        return await self._client._model(call, ImportReport)

    async def erase(self) -> Union[ErasureAccepted, ErasureReceipt]:
        """Erases the owner: from now on it reads as one that never existed. Returns the receipt
        (`client.erasure(receipt.receipt_id)` follows it to `complete`)."""
        response = await self._client._request(Call("DELETE", "/v1/memory", self._scope()))
        model = ErasureAccepted if response.status_code == 202 else ErasureReceipt
        return model.model_validate_json(response.content)
