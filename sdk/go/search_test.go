package engram_test

import (
	"testing"

	engram "github.com/engram-memory/engram/sdk/go"
)

func TestSearchRecallVectorAndBatch(t *testing.T) {
	c, ctx := newClient(t), ctx(t)
	owner := c.Owner(ownerID(t))
	must[*engram.DocumentList](t)(owner.CreateDocuments(ctx, []engram.BatchDocument{
		{Content: "The cat sleeps on the warm windowsill all afternoon."},
		{Content: "Quarterly revenue grew by twelve percent."},
		{Content: "Dogs love long walks in the park."},
	}))
	res := must[*engram.SearchResults](t)(owner.Search(ctx, engram.SearchParams{Q: "cat sleeping", K: 2, MaxDistance: engram.Ptr(2.0), IncludeContent: true, Modality: engram.ModalityText, Mode: engram.SearchModeSemantic}))
	if res.Count == 0 || res.Count > 2 || res.SearchMode != engram.SearchModeSemantic || res.Results[0].Content == nil {
		t.Fatalf("search: %+v", res)
	}
	if *res.Results[0].Content != "The cat sleeps on the warm windowsill all afternoon." {
		t.Fatalf("best hit: %q", *res.Results[0].Content)
	}
	recall := must[*engram.SearchResults](t)(owner.Recall(ctx, "revenue"))
	if recall.SearchMode != engram.SearchModeHybrid || recall.Count == 0 {
		t.Fatalf("recall: %+v", recall)
	}
	// An exact-match bound: MaxDistance 0 is sent (a pointer), so nothing but an identical vector passes.
	none := must[*engram.SearchResults](t)(owner.Search(ctx, engram.SearchParams{Q: "zebra crossing", MaxDistance: engram.Ptr(0.0), Mode: engram.SearchModeSemantic}))
	if none.Count != 0 {
		t.Fatalf("max_distance 0: %d hits", none.Count)
	}
	vector := make([]float64, 384) // the local embedder's dimension
	vector[0] = 1
	byVector := must[*engram.EmbedSearchResults](t)(owner.SearchByVector(ctx, engram.SearchByVectorRequest{Vector: vector, K: 3}))
	if byVector.Count != 3 {
		t.Fatalf("by vector: %d", byVector.Count)
	}
	batch := must[*engram.BatchSearchResults](t)(owner.SearchBatch(ctx, engram.BatchQuery{Q: "dogs"}, engram.BatchQuery{Q: "money", K: 1, Mode: engram.SearchModeLexical}))
	if len(batch.Results) != 2 || len(batch.SearchModes) != 2 || batch.SearchModes[1] != engram.SearchModeLexical {
		t.Fatalf("batch: %+v", batch)
	}
}
