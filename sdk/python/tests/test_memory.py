"""Entities, relationships and facts through the sync client, with their cursor iterators."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest
from conftest import fresh

from engram import (AssertFactOperation, Engram, Entity, Fact, MemoryGraph, NotFound, Relationship,
                    RetractFactOperation, RetractRelationshipOperation, UpsertEntityOperation,
                    UpsertRelationshipOperation)


def test_entities_upsert_get_and_forget(client: Engram) -> None:
    owner = client.owner(fresh("mem"))
    bob = owner.upsert_entity("person", memory_entity_id="bob", display_name="Bob", aliases=["Bobby"],
                              attributes={"age": 41})
    again = owner.upsert_entity("person", memory_entity_id="bob", display_name="Robert", aliases=["Bobby"])
    assert (bob.memory_entity_id, again.memory_entity_id, again.display_name) == ("bob", "bob", "Robert")
    assert owner.get_entity("bob").display_name == "Robert"
    owner.upsert_entity("place", memory_entity_id="paris", display_name="Paris")
    owner.assert_fact("lives_in", "Paris", subject_type="entity", subject_id="bob")
    report = owner.forget_entity("bob")
    assert (report.erased.entities, report.erased.facts) == (1, 1)
    assert [e.memory_entity_id for e in owner.iter_entities()] == ["paris"]


def test_entities_found_by_display_name_or_alias(client: Engram) -> None:
    owner = client.owner(fresh("mem"))
    owner.upsert_entity("person", memory_entity_id="bob", display_name="Robert", aliases=["Bobby"])
    owner.upsert_entity("person", memory_entity_id="rob", display_name="Rob")
    assert [e.memory_entity_id for e in owner.list_entities(name="bobby").entities] == ["bob"]
    assert [e.memory_entity_id for e in owner.iter_entities(name="ROBERT")] == ["bob"]


def test_entity_iterator_follows_cursors_across_pages(client: Engram) -> None:
    owner = client.owner(fresh("mem"))
    ids = [owner.upsert_entity("thing", memory_entity_id=f"t{i:02}").memory_entity_id for i in range(7)]
    first = owner.list_entities(limit=3)
    assert first.count == 3 and first.next_cursor
    assert [e.memory_entity_id for e in owner.iter_entities(page_size=3)] == ids  # creation order


def test_relationships_upsert_list_iterate_and_retract(client: Engram) -> None:
    owner = client.owner(fresh("mem"))
    for name in ("ann", "ben", "cid", "dan"):
        owner.upsert_entity("person", memory_entity_id=name)
    edges = [owner.upsert_relationship("ann", other, "knows", attributes={"since": 2020 + i})
             for i, other in enumerate(("ben", "cid", "dan"))]
    retracted = owner.retract_relationship(edges[0].relationship_id)
    assert retracted.invalid_from is not None
    active = owner.list_relationships(relationship_type="knows")
    assert edges[0].relationship_id not in [r.relationship_id for r in active.relationships]
    assert len(owner.list_relationships(include_inactive=True).relationships) == 3
    listed = list(owner.iter_relationships(page_size=2, from_entity_id="ann", include_inactive=True))
    assert sorted(r.relationship_id for r in listed) == sorted(e.relationship_id for e in edges)


def test_graph_by_depth_with_facts_now_and_as_of_before_a_retraction(client: Engram) -> None:
    owner = client.owner(fresh("mem"))
    ada = owner.upsert_entity("person", display_name="Ada")
    charles = owner.upsert_entity("person", display_name="Charles")
    engine = owner.upsert_entity("project", display_name="Analytical Engine")
    knows = owner.upsert_relationship(ada.memory_entity_id, charles.memory_entity_id, "knows")
    owner.upsert_relationship(charles.memory_entity_id, engine.memory_entity_id, "designed")
    owner.assert_fact("city", "London", subject_type="entity", subject_id=charles.memory_entity_id)

    def names(graph: MemoryGraph) -> list[str]:
        return [n.display_name for n in graph.nodes]

    near = owner.graph(ada.memory_entity_id)
    assert isinstance(near, MemoryGraph)
    assert (names(near), len(near.edges), near.facts) == (["Ada", "Charles"], 1, None)
    far = owner.graph(ada.memory_entity_id, depth=2, include_facts=True)
    assert (names(far), len(far.edges)) == (["Ada", "Charles", "Analytical Engine"], 2)
    assert [f.value for f in far.facts or []] == ["London"]

    before_retraction = datetime.now(timezone.utc)
    time.sleep(0.005)
    owner.retract_relationship(knows.relationship_id)
    now = owner.graph(ada.memory_entity_id, depth=3)
    assert (names(now), now.edges) == (["Ada"], [])
    then = owner.graph(ada.memory_entity_id, depth=3, as_of=before_retraction, direction="outgoing")
    assert (names(then), len(then.edges)) == (["Ada", "Charles", "Analytical Engine"], 2)
    as_text = owner.graph(ada.memory_entity_id, depth=3, as_of=before_retraction.isoformat(), direction="outgoing")
    assert names(as_text) == names(then)


def test_batch_applies_in_order_and_a_refused_batch_leaves_nothing(client: Engram) -> None:
    owner = client.owner(fresh("mem"))
    mood = owner.assert_fact("mood", "calm")
    yesterday = datetime.now(timezone.utc) - timedelta(days=1)
    batch = owner.batch([
        UpsertEntityOperation(entity_type="person", memory_entity_id="ada", display_name="Ada"),
        UpsertEntityOperation(entity_type="project", memory_entity_id="engine", aliases=["AE"]),
        UpsertRelationshipOperation(from_entity_id="ada", to_entity_id="engine", relationship_type="works_on",
                                    relationship_id="ada-engine"),
        AssertFactOperation(predicate="city", value="London", subject_type="entity", subject_id="ada",
                            observed_at=yesterday),
        # A mapping works as well as a model.
        {"op": "assert_fact", "predicate": "city", "value": "Paris", "subject_type": "entity", "subject_id": "ada"},
        RetractFactOperation(fact_id=mood.fact_id),
        RetractRelationshipOperation(relationship_id="ada-engine"),
    ])
    assert batch.count == 7
    assert [type(r) for r in batch.results] == [Entity, Entity, Relationship, Fact, Fact, Fact, Relationship]
    ada, engine, edge, london, paris, calm, retracted = batch.results
    assert isinstance(ada, Entity) and isinstance(engine, Entity) and isinstance(edge, Relationship)
    assert (ada.display_name, engine.aliases, edge.relationship_id) == ("Ada", ["AE"], "ada-engine")
    assert isinstance(london, Fact) and isinstance(paris, Fact) and isinstance(calm, Fact)
    assert (london.value, paris.value, paris.supersedes_fact_id) == ("London", "Paris", london.fact_id)
    assert calm.fact_id == mood.fact_id and calm.invalid_from is not None
    assert isinstance(retracted, Relationship) and retracted.invalid_from is not None
    chain = list(owner.fact_history("city", subject_type="entity", subject_id="ada"))
    assert [(f.value, f.invalid_from is None) for f in chain] == [("London", False), ("Paris", True)]
    assert owner.list_facts(predicate="mood").count == 0

    with pytest.raises(NotFound) as refused:
        owner.batch([
            UpsertEntityOperation(entity_type="person", memory_entity_id="cid"),
            AssertFactOperation(predicate="colour", value="blue"),
            UpsertRelationshipOperation(from_entity_id="cid", to_entity_id="zed", relationship_type="knows"),
        ])
    assert refused.value.message == "operations[2]: memory entity zed not found"
    assert sorted(e.memory_entity_id for e in owner.iter_entities()) == ["ada", "engine"]
    assert owner.list_facts(predicate="colour", include_inactive=True).count == 0
    with pytest.raises(ValueError):  # pydantic's ValidationError: the models refuse an unknown field
        UpsertEntityOperation(entity_type="person", colour="red")  # type: ignore[call-arg]


def test_fact_iterator_reads_25_facts_in_pages_of_10(client: Engram) -> None:
    owner = client.owner(fresh("mem"))
    asserted = {owner.assert_fact("visited", f"city-{i}", cardinality="multi").fact_id for i in range(25)}
    page = owner.list_facts(limit=10)
    assert page.count == 10 and page.next_cursor
    seen = [f.fact_id for f in owner.iter_facts(page_size=10)]
    assert len(seen) == 25 and set(seen) == asserted


def test_supersession_as_of_history_retraction_and_consolidation(client: Engram) -> None:
    owner = client.owner(fresh("mem"))
    yesterday = datetime.now(timezone.utc) - timedelta(days=1)
    tea = owner.assert_fact("drink", "tea", observed_at=yesterday)
    coffee = owner.assert_fact("drink", "coffee")
    then = owner.list_facts(predicate="drink", as_of=yesterday + timedelta(hours=1))
    assert [f.value for f in then.facts] == ["tea"]
    assert [f.fact_id for f in owner.fact_history("drink")] == [tea.fact_id, coffee.fact_id]
    assert owner.retract_fact(coffee.fact_id).invalid_from is not None
    assert owner.list_facts(predicate="drink").count == 0

    owner.assert_fact("likes", "Jazz", cardinality="multi")
    owner.assert_fact("likes", "  jazz ", cardinality="multi")
    report = owner.consolidate()
    assert report.retracted == 1
    assert owner.consolidate().retracted == 0


def test_fact_values_keep_their_json_type(client: Engram) -> None:
    owner = client.owner(fresh("mem"))
    values = {"name": "Ada", "height": 1.7, "vegan": True, "nickname": None}
    for predicate, value in values.items():
        owner.assert_fact(predicate, value)
    got = {f.predicate: f.value for f in owner.iter_facts()}
    assert got == values
    assert type(got["vegan"]) is bool
