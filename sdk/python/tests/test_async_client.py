"""The async client: the same surface, awaited, with async iterators."""

from __future__ import annotations

import io
import json

from conftest import DATA, env, fresh, record

from engram import (AssertFactOperation, AsyncEngram, Entity, Fact, NotFound, QueryDocuments, QueryGroups, RateLimited,
                    RetryEvent)


async def test_async_memory_with_cursor_iterators(aclient: AsyncEngram) -> None:
    owner = aclient.owner(fresh("async"))
    await owner.upsert_entity("person", memory_entity_id="zoe", display_name="Zoe")
    await owner.upsert_entity("person", memory_entity_id="yan")
    edge = await owner.upsert_relationship("zoe", "yan", "mentors")
    asserted = [(await owner.assert_fact("note", f"n{i}", cardinality="multi")).fact_id for i in range(12)]
    seen = [f.fact_id async for f in owner.iter_facts(page_size=5)]
    assert sorted(seen) == sorted(asserted)
    assert [e.memory_entity_id async for e in owner.iter_entities(page_size=1)] == ["zoe", "yan"]
    assert [r.relationship_id async for r in owner.iter_relationships()] == [edge.relationship_id]
    assert (await owner.get_entity("zoe")).display_name == "Zoe"
    graph = await owner.graph("yan", direction="incoming", include_facts=True)
    assert ([n.memory_entity_id for n in graph.nodes], graph.facts) == (["yan", "zoe"], [])
    batch = await owner.batch([{"op": "upsert_entity", "entity_type": "person", "memory_entity_id": "xia"},
                               AssertFactOperation(predicate="mood", value=None)])
    assert [type(r) for r in batch.results] == [Entity, Fact] and batch.results[1].value is None
    try:
        await owner.get_entity("nobody")
        raise AssertionError("no NotFound")
    except NotFound as err:
        assert err.request_id


async def test_async_documents_media_query_and_export(aclient: AsyncEngram) -> None:
    owner_id = fresh("async")
    owner = aclient.owner(owner_id)
    docs = [await owner.create_document(f"async document {i}") for i in range(15)]
    assert len([d async for d in owner.iter_documents(page_size=4)]) == 15
    mine = {"field": "entity_id", "op": "eq", "value": owner_id}
    page = await aclient.query(mine, limit=4)
    assert isinstance(page, QueryDocuments) and page.total == 15 and page.has_more
    every = [d.doc_id async for d in aclient.iter_query(mine, page_size=4)]
    assert sorted(every) == sorted(d.doc_id for d in docs)
    groups = await aclient.query(mine, group_by=["modality"], aggregate=[{"op": "count", "as": "n"}])
    assert isinstance(groups, QueryGroups) and [(g.keys["modality"], g.aggregates["n"]) for g in groups.groups] == [("text", 15)]

    photo = await owner.upload_media(DATA / "photo.jpg", caption="async photo")
    out = io.BytesIO()
    await owner.download_document(photo.doc_id, out)
    assert out.getvalue() == (DATA / "photo.jpg").read_bytes()
    hits = await owner.recall("async photo", k=3)
    assert photo.doc_id in [h.doc_id for h in hits.results]
    lines = [json.loads(line) async for line in owner.export_lines()]
    assert sum(1 for line in lines if line["type"] == "document") == 16


async def test_async_rate_limit_is_retried_and_raised_when_retries_are_off() -> None:
    retries: list[RetryEvent] = []
    async with AsyncEngram(env("ENGRAM_BASE_URL"), env("ENGRAM_LIMITED_KEY"), on_retry=retries.append,
                           on_response=record) as limited:
        for _ in range(4):
            await limited.list_fields()
    assert retries and retries[0].status == 429
    async with AsyncEngram(env("ENGRAM_BASE_URL"), env("ENGRAM_LIMITED_KEY"), max_retries=0) as limited:
        try:
            for _ in range(6):
                await limited.list_fields()
            raise AssertionError("six quick calls on a limited key were all answered")
        except RateLimited as err:
            assert err.retry_after is not None and err.retry_after >= 1
