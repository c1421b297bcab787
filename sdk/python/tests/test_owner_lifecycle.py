"""The owner as a whole: export, import into another owner, erasure and its receipt."""

from __future__ import annotations

import json
import time

from conftest import DATA, fresh

from engram import Conflict, Engram


def test_export_then_import_into_another_owner(client: Engram, admin: Engram) -> None:
    source = admin.owner(fresh("export"))
    source.upsert_entity("person", memory_entity_id="eve", display_name="Eve")
    fact = source.assert_fact("role", "admin", subject_type="entity", subject_id="eve")
    doc = source.create_document("Eve's onboarding notes")
    photo = source.upload_media(DATA / "photo.jpg", caption="Eve's badge photo")

    lines = list(source.export_lines())
    types = sorted(json.loads(line)["type"] for line in lines)
    assert types == ["document", "document", "entity", "fact"]

    target = admin.owner(fresh("import"))
    report = target.import_lines(lines)
    assert (report.imported.entities, report.imported.facts, report.imported.documents) == (1, 1, 2)
    assert target.get_entity("eve").display_name == "Eve"
    assert [f.fact_id for f in target.iter_facts()] == [fact.fact_id]
    assert target.get_document(doc.doc_id).content == "Eve's onboarding notes"
    assert target.get_document(photo.doc_id).derived_text == "Eve's badge photo"
    try:
        target.import_lines(lines)
        raise AssertionError("an import into a non-empty owner was accepted")
    except Conflict:
        pass


def test_erase_returns_a_receipt_that_completes(client: Engram, admin: Engram) -> None:
    owner_id = fresh("erase")
    owner = client.owner(owner_id)
    owner.assert_fact("email", "someone@example.com")
    owner.create_document("private notes")
    accepted = admin.owner(owner_id).erase()
    assert accepted.receipt_id and accepted.state in ("pending", "running", "complete")
    deadline = time.monotonic() + 120
    receipt = client.erasure(accepted.receipt_id)
    while receipt.state in ("pending", "running") and time.monotonic() < deadline:
        time.sleep(0.5)
        receipt = client.erasure(accepted.receipt_id)
    assert receipt.state == "complete" and receipt.finished_at is not None
    assert sum(receipt.counts.values()) >= 2
    assert owner.list_facts().count == 0 and owner.list_documents().count == 0
