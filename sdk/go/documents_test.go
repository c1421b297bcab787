package engram_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"testing"

	engram "github.com/engram-memory/engram/sdk/go"
)

func TestDocumentsCreateBatchGetListDeleteRestorePurge(t *testing.T) {
	c, ctx := newClient(t), ctx(t)
	owner := c.Owner(ownerID(t))
	doc := must[*engram.Document](t)(owner.CreateDocument(ctx, engram.CreateDocumentRequest{Content: "Meeting notes: ship the Go SDK", Title: "notes", Tags: []string{"work"}, Metadata: map[string]any{"team": "sdk"}}))
	if doc.Content == nil || *doc.Content != "Meeting notes: ship the Go SDK" || doc.Modality != engram.ModalityText {
		t.Fatalf("created: %+v", doc)
	}
	private := must[*engram.Document](t)(owner.CreateDocument(ctx, engram.CreateDocumentRequest{Content: "for alice only"}, engram.WithReaders("alice")))
	if len(private.Readers) != 1 || private.Readers[0] != "alice" {
		t.Fatalf("readers: %+v", private.Readers)
	}
	var batch []engram.BatchDocument
	for i := range 14 {
		batch = append(batch, engram.BatchDocument{Content: fmt.Sprintf("batch document %d", i)})
	}
	created := must[*engram.DocumentList](t)(owner.CreateDocuments(ctx, batch))
	if created.Count != 14 {
		t.Fatalf("batch: %d", created.Count)
	}
	got := must[*engram.Document](t)(owner.GetDocument(ctx, doc.DocID))
	if got.CID != doc.CID || got.Title == nil || *got.Title != "notes" {
		t.Fatalf("get: %+v", got)
	}
	// The creator's key is not "alice": the private record does not exist for it, so 15 are listed.
	all := collect(t, owner.Documents(ctx, &engram.ListDocumentsParams{Limit: 4}))
	if len(all) != 15 {
		t.Fatalf("iterated %d documents, want 15", len(all))
	}
	page := must[*engram.DocumentList](t)(owner.ListDocuments(ctx, &engram.ListDocumentsParams{Limit: 4, Offset: 12}))
	if page.Count != 3 {
		t.Fatalf("last page: %d", page.Count)
	}
	deleted := must[*engram.Document](t)(owner.DeleteDocument(ctx, doc.DocID))
	if deleted.DeletedAt == nil {
		t.Fatal("a soft-deleted record has deleted_at")
	}
	withDeleted := must[*engram.DocumentList](t)(owner.ListDocuments(ctx, &engram.ListDocumentsParams{IncludeDeleted: true, Limit: 100}))
	if withDeleted.Count != 15 {
		t.Fatalf("include_deleted: %d", withDeleted.Count)
	}
	restored := must[*engram.Document](t)(owner.RestoreDocument(ctx, doc.DocID))
	if restored.DeletedAt != nil {
		t.Fatal("a restored record has no deleted_at")
	}
	if err := owner.PurgeDocument(ctx, doc.DocID); err != nil {
		t.Fatal(err)
	}
	if _, err := owner.GetDocument(ctx, doc.DocID); !errors.Is(err, engram.ErrNotFound) {
		t.Fatalf("a purged record: %v", err)
	}
}

func TestMediaFromPathAndBytesDownloadsTheSameBytes(t *testing.T) {
	c, ctx := newClient(t), ctx(t)
	owner := c.Owner(ownerID(t))
	fromPath := must[*engram.Media](t)(owner.UploadMediaFile(ctx, "testdata/image.png", engram.UploadMediaRequest{Caption: "a red to blue gradient"}))
	if fromPath.ContentType != "image/png" || fromPath.Modality != engram.ModalityImage || fromPath.Filename == nil || *fromPath.Filename != "image.png" {
		t.Fatalf("from a path: %+v", fromPath)
	}
	jpeg, err := os.ReadFile("testdata/image.jpg")
	if err != nil {
		t.Fatal(err)
	}
	fromBytes := must[*engram.Media](t)(owner.UploadMedia(ctx, jpeg, engram.UploadMediaRequest{Caption: "the same gradient as a JPEG"}))
	if fromBytes.ContentType != "image/jpeg" || *fromBytes.DerivedText != "the same gradient as a JPEG" {
		t.Fatalf("from bytes: %+v", fromBytes)
	}
	var buf bytes.Buffer
	contentType, n, err := owner.Download(ctx, fromBytes.DocID, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), jpeg) || n != int64(len(jpeg)) || contentType != "image/jpeg" {
		t.Fatalf("downloaded %d bytes of %s, not the upload", n, contentType)
	}
	png, _ := os.ReadFile("testdata/image.png")
	buf.Reset()
	if _, _, err := owner.Download(ctx, fromPath.DocID, &buf); err != nil || !bytes.Equal(buf.Bytes(), png) {
		t.Fatalf("the PNG downloads as uploaded: %v", err)
	}
	if _, err := owner.UploadMedia(ctx, []byte("not an image"), engram.UploadMediaRequest{}); err == nil {
		t.Fatal("bytes of no known type need a ContentType")
	}
}
