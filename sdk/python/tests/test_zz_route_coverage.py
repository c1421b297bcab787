"""Every operation of docs/openapi.json has an SDK method, and the suite called every route through the SDK.
(Named zz so that pytest runs it after the other files, whose calls it counts.)"""

from __future__ import annotations

from conftest import CALLED, OPENAPI

from engram import AsyncEngram, AsyncOwner, AsyncPartition, Engram, Owner, Partition

# operationId -> (handle, method). A new route in the document fails this test until the SDK has it.
SDK_METHODS = {
    "upsertEntity": ("owner", "upsert_entity"), "listEntities": ("owner", "list_entities"),
    "getEntity": ("owner", "get_entity"), "forgetEntity": ("owner", "forget_entity"),
    "upsertRelationship": ("owner", "upsert_relationship"), "listRelationships": ("owner", "list_relationships"),
    "retractRelationship": ("owner", "retract_relationship"), "assertFact": ("owner", "assert_fact"),
    "listFacts": ("owner", "list_facts"), "retractFact": ("owner", "retract_fact"),
    "getGraph": ("owner", "graph"), "applyMemoryBatch": ("owner", "batch"),
    "consolidate": ("owner", "consolidate"), "eraseOwner": ("owner", "erase"),
    "getErasure": ("tenant", "erasure"), "exportOwner": ("owner", "export_lines"),
    "importOwner": ("owner", "import_lines"), "createDocument": ("owner", "create_document"),
    "listDocuments": ("owner", "list_documents"), "createDocuments": ("owner", "create_documents"),
    "getDocument": ("owner", "get_document"), "deleteDocument": ("owner", "delete_document"),
    "downloadDocument": ("owner", "download_document"), "restoreDocument": ("owner", "restore_document"),
    "uploadMedia": ("owner", "upload_media"), "search": ("owner", "search"),
    "searchByVector": ("owner", "search_by_vector"), "searchBatch": ("owner", "search_batch"),
    "declareFields": ("tenant", "declare_fields"), "listFields": ("tenant", "list_fields"),
    "removeField": ("tenant", "remove_field"), "query": ("tenant", "query"),
    "getStatus": ("client", "status"), "getIndex": ("client", "index"), "getOpenApi": ("client", "openapi"),
}
HANDLES = {"owner": (Owner, AsyncOwner), "tenant": (Engram, AsyncEngram, Partition, AsyncPartition),
           "client": (Engram, AsyncEngram)}


def operations() -> dict[str, tuple[str, str]]:
    return {op["operationId"]: (method.upper(), path) for path, ops in OPENAPI["paths"].items()
            for method, op in ops.items()}


def test_every_operation_has_a_sync_and_an_async_method() -> None:
    missing = [op for op in operations() if op not in SDK_METHODS]
    assert not missing, f"operations without an SDK method: {missing}"
    for op, (handle, name) in SDK_METHODS.items():
        for cls in HANDLES[handle]:
            assert callable(getattr(cls, name, None)), f"{cls.__name__}.{name} ({op}) is missing"


def test_the_suite_called_every_route_through_the_sdk() -> None:
    uncalled = sorted(f"{op} ({m} {p})" for op, (m, p) in operations().items() if (m, p) not in CALLED)
    assert not uncalled, f"routes no test called through the SDK: {uncalled}"
