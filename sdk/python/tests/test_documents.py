"""Documents, media and search through the sync client."""

from __future__ import annotations

import io

from conftest import DATA, fresh

from engram import Engram, NotFound


def test_documents_create_batch_get_list_delete_restore(client: Engram) -> None:
    owner = client.owner(fresh("doc"))
    doc = owner.create_document("# Plan\nShip the SDKs.", title="Plan", content_type="text/markdown",
                                metadata={"team": "sdk"}, tags=["work"], source="notes")
    batch = owner.create_documents([{"content": f"note {i}", "tags": ["batch"]} for i in range(3)])
    assert batch.count == 3
    got = owner.get_document(doc.doc_id)
    assert (got.title, got.content, got.metadata, got.tags) == ("Plan", "# Plan\nShip the SDKs.", {"team": "sdk"}, ["work"])
    assert owner.list_documents(limit=2).count == 2

    deleted = owner.delete_document(doc.doc_id)
    assert deleted is not None and deleted.deleted_at is not None
    assert doc.doc_id not in [d.doc_id for d in owner.iter_documents()]
    assert doc.doc_id in [d.doc_id for d in owner.iter_documents(include_deleted=True)]
    assert owner.restore_document(doc.doc_id).deleted_at is None

    assert owner.delete_document(doc.doc_id, hard=True) is None
    try:
        owner.get_document(doc.doc_id)
        raise AssertionError("a hard-deleted document is still there")
    except NotFound:
        pass


def test_document_iterator_reads_every_page(client: Engram) -> None:
    owner = client.owner(fresh("doc"))
    created = {owner.create_document(f"page test {i}").doc_id for i in range(9)}
    seen = [d.doc_id for d in owner.iter_documents(page_size=4)]
    assert len(seen) == 9 and set(seen) == created


def test_media_from_a_path_and_from_bytes_download_the_same_bytes(client: Engram, tmp_path) -> None:
    owner = client.owner(fresh("media"))
    jpeg = (DATA / "photo.jpg").read_bytes()
    from_path = owner.upload_media(DATA / "photo.jpg", caption="a gradient from red to blue", tags=["fixture"])
    assert (from_path.content_type, from_path.modality, from_path.filename) == ("image/jpeg", "image", "photo.jpg")
    assert from_path.derived_by == "client"

    png = (DATA / "image.png").read_bytes()
    from_bytes = owner.upload_media(png, caption="the same gradient as a PNG")
    assert (from_bytes.content_type, from_bytes.modality) == ("image/png", "image")

    out = io.BytesIO()
    assert owner.download_document(from_path.doc_id, out) == len(jpeg)
    assert out.getvalue() == jpeg
    target = tmp_path / "copy.png"
    owner.download_document(from_bytes.doc_id, target)
    assert target.read_bytes() == png


def test_search_recall_vector_and_batch(client: Engram) -> None:
    owner = client.owner(fresh("search"))
    sailing = owner.create_document("We went sailing on the lake at dawn; the wind was steady.")
    owner.create_document("The quarterly tax return is due at the end of the month.")
    hits = owner.search("sailing on the lake", k=5, mode="lexical", include_content=True)
    assert hits.search_mode == "lexical"
    assert hits.results[0].doc_id == sailing.doc_id and hits.results[0].content is not None
    recalled = owner.recall("boat trip on a lake", k=1)
    assert recalled.search_mode == "hybrid" and recalled.results[0].doc_id == sailing.doc_id
    assert owner.search("sailing", modality="image").count == 0
    assert all(h.distance is not None and h.distance <= 0.9 for h in owner.search("sailing", max_distance=0.9).results)

    dimension = int(client.status().embedder.id.rsplit("-", 1)[1])  # e.g. all-minilm-l6-v2-384
    by_vector = owner.search_by_vector([0.01] * dimension, k=2)
    assert by_vector.count == 2

    batch = owner.search_batch(["sailing at dawn", {"q": "tax return", "k": 1, "mode": "lexical"}])
    assert len(batch.results) == 2 and batch.search_modes[1] == "lexical"
    assert batch.results[0][0].doc_id == sailing.doc_id
