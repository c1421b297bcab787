package engram_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	engram "github.com/engram-memory/engram/sdk/go"
)

func TestEntitiesUpsertGetListAndForget(t *testing.T) {
	c, ctx := newClient(t), ctx(t)
	owner := c.Owner(ownerID(t))
	alice := must[*engram.Entity](t)(owner.UpsertEntity(ctx, engram.UpsertEntityRequest{EntityType: "person", DisplayName: "Alice", Aliases: []string{"Ali"}, Attributes: map[string]any{"age": 31}}))
	again := must[*engram.Entity](t)(owner.UpsertEntity(ctx, engram.UpsertEntityRequest{EntityType: "person", MemoryEntityID: alice.MemoryEntityID, DisplayName: "Alice B."}))
	if again.MemoryEntityID != alice.MemoryEntityID || *again.DisplayName != "Alice B." {
		t.Fatalf("upsert by id: %+v", again)
	}
	got := must[*engram.Entity](t)(owner.GetEntity(ctx, alice.MemoryEntityID))
	if got.Attributes["age"] != float64(31) || got.Aliases[0] != "Ali" {
		t.Fatalf("get: %+v", got)
	}
	byName := must[*engram.EntityList](t)(owner.ListEntities(ctx, &engram.ListEntitiesParams{Name: "ali"})) // an alias, any case
	if byName.Count != 1 || byName.Entities[0].MemoryEntityID != alice.MemoryEntityID || byName.NextCursor != nil {
		t.Fatalf("by name: %+v", byName)
	}
	list := must[*engram.EntityList](t)(owner.ListEntities(ctx, &engram.ListEntitiesParams{EntityType: "person"}))
	if list.Count != 1 || list.Entities[0].MemoryEntityID != alice.MemoryEntityID {
		t.Fatalf("list: %+v", list)
	}
	report := must[*engram.ForgetReport](t)(owner.ForgetEntity(ctx, alice.MemoryEntityID))
	if report.Erased.Entities != 1 {
		t.Fatalf("forget: %+v", report)
	}
	if _, err := owner.GetEntity(ctx, alice.MemoryEntityID); !errors.Is(err, engram.ErrNotFound) {
		t.Fatalf("a forgotten entity: %v", err)
	}
}

func TestEntitiesIteratorFollowsCursors(t *testing.T) {
	c, ctx := newClient(t), ctx(t)
	owner := c.Owner(ownerID(t))
	for i := range 12 {
		must[*engram.Entity](t)(owner.UpsertEntity(ctx, engram.UpsertEntityRequest{EntityType: "item", MemoryEntityID: fmt.Sprintf("item-%02d", i)}))
	}
	pages := 0
	c2 := newClient(t, observed(func(a engram.Attempt) {
		if a.Operation == "listEntities" {
			pages++
		}
	}))
	all := collect(t, c2.Owner(owner.ID()).Entities(ctx, &engram.ListEntitiesParams{Limit: 5}))
	if len(all) != 12 || pages != 3 {
		t.Fatalf("got %d entities in %d pages, want 12 in 3", len(all), pages)
	}
	for i, e := range all { // oldest first, each once
		if e.MemoryEntityID != fmt.Sprintf("item-%02d", i) {
			t.Fatalf("entity %d is %s", i, e.MemoryEntityID)
		}
	}
}

func TestRelationshipsUpsertListIterateRetract(t *testing.T) {
	c, ctx := newClient(t), ctx(t)
	owner := c.Owner(ownerID(t))
	hub := must[*engram.Entity](t)(owner.UpsertEntity(ctx, engram.UpsertEntityRequest{EntityType: "team", MemoryEntityID: "hub"}))
	for i := range 7 {
		id := fmt.Sprintf("member-%d", i)
		must[*engram.Entity](t)(owner.UpsertEntity(ctx, engram.UpsertEntityRequest{EntityType: "person", MemoryEntityID: id}))
		must[*engram.Relationship](t)(owner.UpsertRelationship(ctx, engram.UpsertRelationshipRequest{FromEntityID: id, ToEntityID: hub.MemoryEntityID, RelationshipType: "member_of"}))
	}
	edges := collect(t, owner.Relationships(ctx, &engram.ListRelationshipsParams{ToEntityID: "hub", Limit: 3}))
	if len(edges) != 7 {
		t.Fatalf("iterated %d edges, want 7", len(edges))
	}
	retracted := must[*engram.Relationship](t)(owner.RetractRelationship(ctx, edges[0].RelationshipID))
	if retracted.InvalidFrom == nil {
		t.Fatal("a retracted edge has invalid_from")
	}
	page := must[*engram.RelationshipList](t)(owner.ListRelationships(ctx, &engram.ListRelationshipsParams{RelationshipType: "member_of"}))
	if page.Count != 6 {
		t.Fatalf("active edges after a retraction: %d", page.Count)
	}
}

func TestGraphByDepthNowAndAsOfBeforeARetraction(t *testing.T) {
	c, ctx := newClient(t), ctx(t)
	owner := c.Owner(ownerID(t))
	upsert := func(kind, name string) *engram.Entity {
		return must[*engram.Entity](t)(owner.UpsertEntity(ctx, engram.UpsertEntityRequest{EntityType: kind, DisplayName: name}))
	}
	ada, charles, engine := upsert("person", "Ada"), upsert("person", "Charles"), upsert("project", "Analytical Engine")
	knows := must[*engram.Relationship](t)(owner.UpsertRelationship(ctx, engram.UpsertRelationshipRequest{FromEntityID: ada.MemoryEntityID, ToEntityID: charles.MemoryEntityID, RelationshipType: "knows"}))
	must[*engram.Relationship](t)(owner.UpsertRelationship(ctx, engram.UpsertRelationshipRequest{FromEntityID: charles.MemoryEntityID, ToEntityID: engine.MemoryEntityID, RelationshipType: "designed"}))
	must[*engram.Fact](t)(owner.AssertFact(ctx, engram.AssertFactRequest{SubjectType: engram.SubjectTypeEntity, SubjectID: charles.MemoryEntityID, Predicate: "city", Value: "London"}))
	names := func(g *engram.MemoryGraph) string {
		var out []string
		for _, n := range g.Nodes {
			out = append(out, *n.DisplayName)
		}
		return strings.Join(out, ", ")
	}

	near := must[*engram.MemoryGraph](t)(owner.Graph(ctx, ada.MemoryEntityID, nil))
	if names(near) != "Ada, Charles" || len(near.Edges) != 1 || near.Facts != nil {
		t.Fatalf("depth 1: nodes %s, %d edges, facts %v", names(near), len(near.Edges), near.Facts)
	}
	far := must[*engram.MemoryGraph](t)(owner.Graph(ctx, ada.MemoryEntityID, &engram.GraphParams{Depth: 2, IncludeFacts: true}))
	if names(far) != "Ada, Charles, Analytical Engine" || len(far.Edges) != 2 {
		t.Fatalf("depth 2: nodes %s, %d edges", names(far), len(far.Edges))
	}
	if len(far.Facts) != 1 || far.Facts[0].Value != "London" {
		t.Fatalf("depth 2 with facts: %+v", far.Facts)
	}

	beforeRetraction := time.Now()
	time.Sleep(5 * time.Millisecond)
	must[*engram.Relationship](t)(owner.RetractRelationship(ctx, knows.RelationshipID))
	if now := must[*engram.MemoryGraph](t)(owner.Graph(ctx, ada.MemoryEntityID, &engram.GraphParams{Depth: 3})); names(now) != "Ada" || len(now.Edges) != 0 {
		t.Fatalf("after the retraction: nodes %s, %d edges", names(now), len(now.Edges))
	}
	then := must[*engram.MemoryGraph](t)(owner.Graph(ctx, ada.MemoryEntityID, &engram.GraphParams{Depth: 3, AsOf: beforeRetraction, Direction: engram.GraphDirectionOutgoing}))
	if names(then) != "Ada, Charles, Analytical Engine" || len(then.Edges) != 2 {
		t.Fatalf("as of before the retraction, outgoing: nodes %s, %d edges", names(then), len(then.Edges))
	}
}

func TestBatchAppliesInOrderAndARefusedBatchLeavesNothing(t *testing.T) {
	var keys []string
	c, ctx := newClient(t, observed(func(a engram.Attempt) {
		if a.Operation == "applyMemoryBatch" {
			keys = append(keys, a.IdempotencyKey)
		}
	})), ctx(t)
	owner := c.Owner(ownerID(t))
	mood := must[*engram.Fact](t)(owner.AssertFact(ctx, engram.AssertFactRequest{Predicate: "mood", Value: "calm"}))
	yesterday := time.Now().Add(-24 * time.Hour)
	res := must[*engram.MemoryBatchResult](t)(owner.Batch(ctx, []engram.MemoryOperation{
		engram.UpsertEntityOperation{EntityType: "person", MemoryEntityID: "ada", DisplayName: "Ada"},
		&engram.UpsertEntityOperation{EntityType: "project", MemoryEntityID: "engine", Aliases: []string{"AE"}},
		engram.UpsertRelationshipOperation{FromEntityID: "ada", ToEntityID: "engine", RelationshipType: "works_on", RelationshipID: "ada-engine"},
		engram.AssertFactOperation{SubjectType: engram.SubjectTypeEntity, SubjectID: "ada", Predicate: "city", Value: "London", ObservedAt: &yesterday},
		engram.AssertFactOperation{SubjectType: engram.SubjectTypeEntity, SubjectID: "ada", Predicate: "city", Value: "Paris"},
		engram.RetractFactOperation{FactID: mood.FactID},
		engram.RetractRelationshipOperation{RelationshipID: "ada-engine"},
	}))
	if res.Count != 7 || len(res.Results) != 7 {
		t.Fatalf("count %d, %d results, want 7", res.Count, len(res.Results))
	}
	kinds := ""
	for _, r := range res.Results {
		switch {
		case r.Entity != nil:
			kinds += "E"
		case r.Relationship != nil:
			kinds += "R"
		case r.Fact != nil:
			kinds += "F"
		}
	}
	if kinds != "EERFFFR" {
		t.Fatalf("results are %s, want EERFFFR (entity, relationship, fact in operation order)", kinds)
	}
	ada, engine, edge, london, paris, calm, retracted := res.Results[0].Entity, res.Results[1].Entity, res.Results[2].Relationship,
		res.Results[3].Fact, res.Results[4].Fact, res.Results[5].Fact, res.Results[6].Relationship
	if *ada.DisplayName != "Ada" || engine.Aliases[0] != "AE" || edge.RelationshipID != "ada-engine" {
		t.Fatalf("records: %+v %+v %+v", ada, engine, edge)
	}
	if london.Value != "London" || paris.Value != "Paris" || paris.SupersedesFactID == nil || *paris.SupersedesFactID != london.FactID {
		t.Fatalf("Paris does not supersede London: %+v, %+v", london, paris)
	}
	if calm.FactID != mood.FactID || calm.InvalidFrom == nil || retracted.InvalidFrom == nil {
		t.Fatalf("retractions: %+v, %+v", calm, retracted)
	}
	chain := collect(t, owner.FactHistory(ctx, engram.ListFactsParams{SubjectType: engram.SubjectTypeEntity, SubjectID: "ada", Predicate: "city"}))
	if len(chain) != 2 || chain[0].Value != "London" || chain[0].InvalidFrom == nil || chain[1].Value != "Paris" || chain[1].InvalidFrom != nil {
		t.Fatalf("city's chain: %+v", chain)
	}

	_, err := owner.Batch(ctx, []engram.MemoryOperation{
		engram.UpsertEntityOperation{EntityType: "person", MemoryEntityID: "cid"},
		engram.AssertFactOperation{Predicate: "colour", Value: "blue"},
		engram.UpsertRelationshipOperation{FromEntityID: "cid", ToEntityID: "zed", RelationshipType: "knows"},
	})
	var apiErr *engram.Error
	if !errors.Is(err, engram.ErrNotFound) || !errors.As(err, &apiErr) || apiErr.Message != "operations[2]: memory entity zed not found" {
		t.Fatalf("an edge to a missing node: %v", err)
	}
	if entities := collect(t, owner.Entities(ctx, nil)); len(entities) != 2 {
		t.Fatalf("the refused batch left entities: %+v", entities)
	}
	if colours := must[*engram.FactList](t)(owner.ListFacts(ctx, &engram.ListFactsParams{Predicate: "colour", IncludeInactive: true})); colours.Count != 0 {
		t.Fatalf("the refused batch left facts: %+v", colours.Facts)
	}
	if len(keys) != 2 || keys[0] == "" || keys[0] == keys[1] {
		t.Fatalf("each batch carries an Idempotency-Key of its own: %q", keys)
	}
}

func TestFactsIteratorAcrossPages(t *testing.T) {
	c, ctx := newClient(t), ctx(t)
	owner := c.Owner(ownerID(t))
	for i := range 25 {
		must[*engram.Fact](t)(owner.AssertFact(ctx, engram.AssertFactRequest{Predicate: "likes", Value: fmt.Sprintf("thing %d", i), Cardinality: engram.CardinalityMulti}))
	}
	seen := map[string]bool{}
	for f, err := range owner.Facts(ctx, &engram.ListFactsParams{Predicate: "likes", Limit: 10}) {
		if err != nil {
			t.Fatal(err)
		}
		if seen[f.FactID] {
			t.Fatalf("fact %s yielded twice", f.FactID)
		}
		seen[f.FactID] = true
	}
	if len(seen) != 25 {
		t.Fatalf("iterated %d facts, want 25", len(seen))
	}
	// Breaking out of the loop stops the iterator.
	n := 0
	for range owner.Facts(ctx, &engram.ListFactsParams{Limit: 10}) {
		n++
		if n == 3 {
			break
		}
	}
	if n != 3 {
		t.Fatalf("break: %d", n)
	}
}

func TestFactsSupersedeAsOfHistoryRetractConsolidate(t *testing.T) {
	c, ctx := newClient(t), ctx(t)
	owner := c.Owner(ownerID(t))
	yesterday := time.Now().Add(-24 * time.Hour).UTC().Truncate(time.Millisecond)
	first := must[*engram.Fact](t)(owner.AssertFact(ctx, engram.AssertFactRequest{Predicate: "city", Value: "Lyon", ObservedAt: &yesterday}))
	second := must[*engram.Fact](t)(owner.AssertFact(ctx, engram.AssertFactRequest{Predicate: "city", Value: "Paris"}))
	if second.SupersedesFactID == nil || *second.SupersedesFactID != first.FactID {
		t.Fatalf("the second fact supersedes the first: %+v", second)
	}
	then := must[*engram.FactList](t)(owner.ListFacts(ctx, &engram.ListFactsParams{Predicate: "city", AsOf: yesterday.Add(time.Hour)}))
	if then.Count != 1 || then.Facts[0].Value != "Lyon" {
		t.Fatalf("as of an hour after yesterday: %+v", then.Facts)
	}
	history := collect(t, owner.FactHistory(ctx, engram.ListFactsParams{SubjectType: engram.SubjectTypeOwner, Predicate: "city"}))
	if len(history) != 2 || history[0].Value != "Lyon" || history[1].Value != "Paris" {
		t.Fatalf("history: %+v", history)
	}
	must[*engram.Fact](t)(owner.AssertFact(ctx, engram.AssertFactRequest{Predicate: "hobby", Value: "Chess", Cardinality: engram.CardinalityMulti}))
	must[*engram.Fact](t)(owner.AssertFact(ctx, engram.AssertFactRequest{Predicate: "hobby", Value: " chess ", Cardinality: engram.CardinalityMulti}))
	report := must[*engram.ConsolidationReport](t)(owner.Consolidate(ctx))
	if report.Retracted != 1 {
		t.Fatalf("consolidate: %+v", report)
	}
	retracted := must[*engram.Fact](t)(owner.RetractFact(ctx, second.FactID))
	if retracted.InvalidFrom == nil {
		t.Fatal("a retracted fact has invalid_from")
	}
}
