package engram_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	engram "github.com/engram-memory/engram/sdk/go"
)

// waitForBackfill polls until every field's backfill is complete.
func waitForBackfill(t *testing.T, ctx context.Context, s *engram.Scope) *engram.FieldList {
	t.Helper()
	for {
		fields := must[*engram.FieldList](t)(s.ListFields(ctx))
		done := true
		for _, f := range fields.Fields {
			done = done && f.Backfill == "complete"
		}
		if done {
			return fields
		}
		select {
		case <-ctx.Done():
			t.Fatalf("backfill not complete: %+v", fields.Fields)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func TestSchemaQueryModeAPagesAndModeBGroups(t *testing.T) {
	c, ctx := newClient(t), ctx(t)
	owner := c.Owner(ownerID(t))
	var docs []engram.BatchDocument
	for i := range 15 {
		docs = append(docs, engram.BatchDocument{Content: fmt.Sprintf("order %d", i), Metadata: map[string]any{"shop": []string{"north", "south", "east"}[i%3], "amount": i}})
	}
	must[*engram.DocumentList](t)(owner.CreateDocuments(ctx, docs))
	declared := must[*engram.FieldList](t)(c.DeclareFields(ctx,
		engram.FieldDeclaration{Name: "shop", Type: engram.FieldTypeString, Source: engram.FieldSource{Metadata: "shop"}},
		engram.FieldDeclaration{Name: "amount", Type: engram.FieldTypeInt, Source: engram.FieldSource{Metadata: "amount"}}))
	if len(declared.Fields) < 2 {
		t.Fatalf("declared: %+v", declared)
	}
	waitForBackfill(t, ctx, c.Scope)

	mine := map[string]any{"field": "entity_id", "op": "eq", "value": owner.ID()}
	pages := 0
	c2 := newClient(t, observed(func(a engram.Attempt) {
		if a.Operation == "query" {
			pages++
		}
	}))
	var amounts []float64
	for d, err := range c2.QueryDocuments(ctx, engram.QueryRequest{Filter: mine, Sort: []engram.QuerySort{{By: "amount", Dir: engram.SortDirectionAsc}}, Limit: 4}) {
		if err != nil {
			t.Fatal(err)
		}
		amounts = append(amounts, d.Fields["amount"].(float64))
	}
	if len(amounts) != 15 || pages != 4 || amounts[0] != 0 || amounts[14] != 14 {
		t.Fatalf("Mode A: %v in %d pages", amounts, pages)
	}

	result := must[*engram.QueryResult](t)(c.Query(ctx, engram.QueryRequest{Filter: mine, GroupBy: []string{"shop"},
		Aggregate: []engram.QueryAggregate{{Op: engram.AggregateOpCount, As: "n"}, {Op: engram.AggregateOpSum, Field: "amount", As: "total"}},
		Sort:      []engram.QuerySort{{By: "shop"}}}))
	if result.Groups == nil || result.Documents != nil || len(result.Groups.Groups) != 3 {
		t.Fatalf("Mode B: %+v", result)
	}
	east := result.Groups.Groups[0]
	if east.Keys["shop"] != "east" || east.Aggregates["n"] != float64(5) || east.Aggregates["total"] != float64(2+5+8+11+14) {
		t.Fatalf("group east: %+v", east)
	}
	for d, err := range c.QueryDocuments(ctx, engram.QueryRequest{GroupBy: []string{"shop"}}) {
		if err == nil {
			t.Fatalf("a Mode B query is not iterated as documents: %+v", d)
		}
	}

	left := must[*engram.FieldList](t)(c.RemoveField(ctx, "amount"))
	for _, f := range left.Fields {
		if f.Name == "amount" {
			t.Fatal("amount is still declared")
		}
	}
	if _, err := c.RemoveField(ctx, "amount"); !errors.Is(err, engram.ErrNotFound) {
		t.Fatalf("removing it again: %v", err)
	}
}

func TestPartitionScopesSchemaQueryAndOwners(t *testing.T) {
	c, ctx := newClient(t), ctx(t)
	p := c.Partition("part-" + ownerID(t))
	owner := p.Owner(ownerID(t))
	doc := must[*engram.Document](t)(owner.CreateDocument(ctx, engram.CreateDocumentRequest{Content: "in a partition", Metadata: map[string]any{"colour": "green"}}))
	if doc.Partition == nil || *doc.Partition != p.PartitionName() {
		t.Fatalf("the owner carries the partition: %+v", doc.Partition)
	}
	if _, err := c.Owner(owner.ID()).GetDocument(ctx, doc.DocID); !errors.Is(err, engram.ErrNotFound) {
		t.Fatalf("outside the partition the record does not exist: %v", err)
	}
	fields := must[*engram.FieldList](t)(p.DeclareFields(ctx, engram.FieldDeclaration{Name: "colour", Type: engram.FieldTypeString, Source: engram.FieldSource{Metadata: "colour"}}))
	for _, f := range fields.Fields {
		if f.Name == "colour" && (f.PartitionScope == nil || *f.PartitionScope != p.PartitionName()) {
			t.Fatalf("declared in the partition: %+v", f)
		}
	}
	waitForBackfill(t, ctx, p)
	found := collect(t, p.QueryDocuments(ctx, engram.QueryRequest{Filter: map[string]any{"field": "colour", "op": "eq", "value": "green"}}))
	if len(found) != 1 || found[0].DocID != doc.DocID {
		t.Fatalf("partition query: %+v", found)
	}
}

func TestMultiTenantKeyNeedsAPartition(t *testing.T) {
	c, ctx := newClient(t, engram.WithAPIKey(os.Getenv("ENGRAM_MULTI_KEY"))), ctx(t)
	id := ownerID(t)
	if _, err := c.Owner(id).CreateDocument(ctx, engram.CreateDocumentRequest{Content: "x"}); !errors.Is(err, engram.ErrInvalidInput) {
		t.Fatalf("without a partition: %v", err)
	}
	doc := must[*engram.Document](t)(c.Partition("customer-1").Owner(id).CreateDocument(ctx, engram.CreateDocumentRequest{Content: "x"}))
	if *doc.Partition != "customer-1" {
		t.Fatalf("partition: %v", *doc.Partition)
	}
}
