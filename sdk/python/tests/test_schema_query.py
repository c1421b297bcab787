"""Field schema and structured query: tenant-wide on the client, scoped on a partition handle."""

from __future__ import annotations

import uuid

from conftest import env, fresh

from engram import Engram, InvalidInput, QueryDocuments, QueryGroups


def field_name() -> str:
    return "f_" + uuid.uuid4().hex[:10]


def test_declare_list_remove_fields_and_query_both_modes(client: Engram) -> None:
    owner_id = fresh("query")
    owner = client.owner(owner_id)
    rating, colour = field_name(), field_name()
    for i in range(15):
        owner.create_document(f"review {i}", metadata={"rating": i % 3, "colour": "red" if i < 10 else "blue"})

    declared = client.declare_fields([
        {"name": rating, "type": "int", "source": {"metadata": "rating"}},
        {"name": colour, "type": "string", "source": {"metadata": "colour"}},
    ])
    assert {rating, colour} <= {f.name for f in declared.fields}
    fields = {f.name: f for f in client.wait_for_backfill(rating, colour).fields}
    assert fields[rating].coverage >= 15 and fields[rating].backfill == "complete"

    mine = {"field": "entity_id", "op": "eq", "value": owner_id}
    page = client.query({"and": [mine, {"field": colour, "op": "eq", "value": "red"}]}, limit=4,
                        sort=[{"by": rating, "dir": "desc"}])
    assert isinstance(page, QueryDocuments) and page.total == 10 and page.has_more
    every = list(client.iter_query(mine, sort=[{"by": "created_at"}], page_size=4))
    assert len(every) == 15 and len({d.doc_id for d in every}) == 15

    groups = client.query(mine, group_by=[colour], aggregate=[{"op": "count", "as": "n"},
                                                              {"op": "sum", "field": rating, "as": "total"}])
    assert isinstance(groups, QueryGroups)
    by_colour = {g.keys[colour]: g.aggregates for g in groups.groups}
    assert by_colour == {"red": {"n": 10, "total": 9}, "blue": {"n": 5, "total": 6}}

    remaining = client.remove_field(colour)
    assert colour not in {f.name for f in remaining.fields}
    try:
        client.query({"field": colour, "op": "eq", "value": "red"})
        raise AssertionError("a removed field is still queryable")
    except InvalidInput as err:
        assert colour in err.message


def test_partition_handle_scopes_schema_query_and_owners() -> None:
    with Engram(env("ENGRAM_BASE_URL"), env("ENGRAM_MULTI_KEY")) as multi:
        try:
            multi.list_fields()
            raise AssertionError("a multi-tenant key without a partition was accepted")
        except InvalidInput as err:
            assert "partition" in err.message
        north_id = fresh("north")
        north, south = multi.partition(north_id), multi.partition(fresh("south"))
        name = field_name()
        north.declare_fields([{"name": name, "type": "string", "source": {"metadata": "city"}}])
        assert name in {f.name for f in north.list_fields().fields}
        assert name not in {f.name for f in south.list_fields().fields}

        owner = north.owner("user-1")
        doc = owner.create_document("hello from the north", metadata={"city": "Oslo"})
        assert doc.partition == north_id and owner.partition == north_id
        north.wait_for_backfill(name)
        found = north.query({"field": name, "op": "eq", "value": "Oslo"})
        assert isinstance(found, QueryDocuments) and [d.doc_id for d in found.documents] == [doc.doc_id]
        assert south.owner("user-1").list_documents().count == 0
