package engram_test

import (
	"bytes"
	"errors"
	"os"
	"testing"
	"time"

	engram "github.com/engram-memory/engram/sdk/go"
)

func TestExportImportIntoAnotherOwnerThenErase(t *testing.T) {
	c, ctx := newClient(t, engram.WithAPIKey(os.Getenv("ENGRAM_ADMIN_KEY"))), ctx(t)
	source, target := c.Owner(ownerID(t)), c.Owner(ownerID(t))
	must[*engram.Entity](t)(source.UpsertEntity(ctx, engram.UpsertEntityRequest{EntityType: "person", MemoryEntityID: "bob"}))
	fact := must[*engram.Fact](t)(source.AssertFact(ctx, engram.AssertFactRequest{Predicate: "city", Value: "Oslo"}))
	must[*engram.Document](t)(source.CreateDocument(ctx, engram.CreateDocumentRequest{Content: "a note"}))
	must[*engram.Media](t)(source.UploadMediaFile(ctx, "testdata/image.png", engram.UploadMediaRequest{Caption: "gradient"}))

	kinds := map[string]int{}
	for line, err := range source.ExportLines(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case line.Entity != nil:
			kinds["entity"]++
		case line.Fact != nil:
			kinds["fact"]++
			if line.Fact.Record.Value != "Oslo" {
				t.Fatalf("exported fact: %+v", line.Fact.Record)
			}
		case line.Document != nil:
			kinds["document"]++
		}
	}
	if kinds["entity"] != 1 || kinds["fact"] != 1 || kinds["document"] != 2 {
		t.Fatalf("export lines: %v", kinds)
	}

	var export bytes.Buffer
	if n, err := source.Export(ctx, &export); err != nil || n == 0 {
		t.Fatalf("export: %d bytes, %v", n, err)
	}
	report := must[*engram.ImportReport](t)(target.Import(ctx, &export))
	if report.Imported.Entities != 1 || report.Imported.Facts != 1 || report.Imported.Documents != 2 {
		t.Fatalf("import: %+v", report)
	}
	copied := must[*engram.FactList](t)(target.ListFacts(ctx, &engram.ListFactsParams{Predicate: "city"}))
	if copied.Count != 1 || copied.Facts[0].FactID != fact.FactID || copied.Facts[0].Value != "Oslo" {
		t.Fatalf("the imported owner's facts: %+v", copied.Facts)
	}

	accepted := must[*engram.ErasureAccepted](t)(source.Erase(ctx))
	receipt := &engram.ErasureReceipt{State: accepted.State}
	for receipt.State != engram.ErasureStateComplete {
		if receipt.State == engram.ErasureStateFailed {
			t.Fatalf("erasure failed: %+v", receipt)
		}
		time.Sleep(200 * time.Millisecond)
		receipt = must[*engram.ErasureReceipt](t)(c.Erasure(ctx, accepted.ReceiptID))
	}
	if receipt.ReceiptID != accepted.ReceiptID || receipt.FinishedAt == nil || receipt.Counts["facts"] != 1 {
		t.Fatalf("receipt: %+v", receipt)
	}
	if _, err := source.GetEntity(ctx, "bob"); !errors.Is(err, engram.ErrNotFound) {
		t.Fatalf("an erased owner's entity: %v", err)
	}
}
