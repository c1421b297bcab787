package engram

import (
	"context"
	"iter"
	"net/url"
)

// Owner is the handle of one owner (entity_id) in the client's tenant or in one partition of it.
type Owner struct {
	c         *Client
	id        string
	partition string
}

// ID is the owner's entity_id.
func (o *Owner) ID() string { return o.id }

func (o *Owner) query() url.Values {
	q := url.Values{"entity_id": {o.id}}
	if o.partition != "" {
		q.Set("partition", o.partition)
	}
	return q
}

// encoder is a generated params struct.
type encoder interface{ encode(url.Values) }

// withParams is the owner's query plus a call's params and, when following pages, a cursor.
func (o *Owner) withParams(p encoder, cursor string) url.Values {
	q := o.query()
	p.encode(q)
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	return q
}

// UpsertEntity creates an entity, or updates the one named by req.MemoryEntityID.
func (o *Owner) UpsertEntity(ctx context.Context, req UpsertEntityRequest, opts ...CallOption) (*Entity, error) {
	return do[Entity](ctx, o.c, &request{op: opUpsertEntity, query: o.query(), body: jsonBody(req), callOptions: opts})
}

// GetEntity returns one entity by its memory_entity_id.
func (o *Owner) GetEntity(ctx context.Context, id string) (*Entity, error) {
	return do[Entity](ctx, o.c, &request{op: opGetEntity, pathArgs: []string{id}, query: o.query()})
}

// ListEntities returns one page of entities (oldest first); Entities iterates over all of them.
func (o *Owner) ListEntities(ctx context.Context, p *ListEntitiesParams) (*EntityList, error) {
	return o.listEntities(ctx, p, "")
}

func (o *Owner) listEntities(ctx context.Context, p *ListEntitiesParams, cursor string) (*EntityList, error) {
	return do[EntityList](ctx, o.c, &request{op: opListEntities, query: o.withParams(p, cursor)})
}

// Entities yields every entity matching p, following the list's cursors page by page (p.Limit per page).
func (o *Owner) Entities(ctx context.Context, p *ListEntitiesParams) iter.Seq2[Entity, error] {
	return cursorPages(func(cursor string) ([]Entity, *string, error) {
		page, err := o.listEntities(ctx, p, cursor)
		if err != nil {
			return nil, nil, err
		}
		return page.Entities, page.NextCursor, nil
	})
}

// ForgetEntity erases an entity, every edge from or to it and every fact about them, history included.
func (o *Owner) ForgetEntity(ctx context.Context, id string) (*ForgetReport, error) {
	return do[ForgetReport](ctx, o.c, &request{op: opForgetEntity, pathArgs: []string{id}, query: o.query()})
}

// UpsertRelationship creates an edge, or updates the one named by req.RelationshipID.
func (o *Owner) UpsertRelationship(ctx context.Context, req UpsertRelationshipRequest, opts ...CallOption) (*Relationship, error) {
	return do[Relationship](ctx, o.c, &request{op: opUpsertRelationship, query: o.query(), body: jsonBody(req), callOptions: opts})
}

// ListRelationships returns one page of edges (latest observed first); Relationships iterates.
func (o *Owner) ListRelationships(ctx context.Context, p *ListRelationshipsParams) (*RelationshipList, error) {
	return o.listRelationships(ctx, p, "")
}

func (o *Owner) listRelationships(ctx context.Context, p *ListRelationshipsParams, cursor string) (*RelationshipList, error) {
	return do[RelationshipList](ctx, o.c, &request{op: opListRelationships, query: o.withParams(p, cursor)})
}

// Relationships yields every edge matching p, following the list's cursors.
func (o *Owner) Relationships(ctx context.Context, p *ListRelationshipsParams) iter.Seq2[Relationship, error] {
	return cursorPages(func(cursor string) ([]Relationship, *string, error) {
		page, err := o.listRelationships(ctx, p, cursor)
		if err != nil {
			return nil, nil, err
		}
		return page.Relationships, page.NextCursor, nil
	})
}

// RetractRelationship ends an edge (its history is kept) and returns it.
func (o *Owner) RetractRelationship(ctx context.Context, id string) (*Relationship, error) {
	return do[Relationship](ctx, o.c, &request{op: opRetractRelationship, pathArgs: []string{id}, query: o.query()})
}

// AssertFact records a fact; a single-cardinality fact supersedes the active one of its subject and predicate.
func (o *Owner) AssertFact(ctx context.Context, req AssertFactRequest, opts ...CallOption) (*Fact, error) {
	return do[Fact](ctx, o.c, &request{op: opAssertFact, query: o.query(), body: jsonBody(req), callOptions: opts})
}

// ListFacts returns one page of facts (latest observed first; p.AsOf for what was known then); Facts iterates.
func (o *Owner) ListFacts(ctx context.Context, p *ListFactsParams) (*FactList, error) {
	return o.listFacts(ctx, p, "")
}

func (o *Owner) listFacts(ctx context.Context, p *ListFactsParams, cursor string) (*FactList, error) {
	return do[FactList](ctx, o.c, &request{op: opListFacts, query: o.withParams(p, cursor)})
}

// Facts yields every fact matching p, following the list's cursors.
func (o *Owner) Facts(ctx context.Context, p *ListFactsParams) iter.Seq2[Fact, error] {
	return cursorPages(func(cursor string) ([]Fact, *string, error) {
		page, err := o.listFacts(ctx, p, cursor)
		if err != nil {
			return nil, nil, err
		}
		return page.Facts, page.NextCursor, nil
	})
}

// FactHistory yields the whole chain of one subject's predicate, oldest first (p.SubjectType and
// p.Predicate are required; p.SubjectID for an entity or relationship).
func (o *Owner) FactHistory(ctx context.Context, p ListFactsParams) iter.Seq2[Fact, error] {
	p.History = true
	return o.Facts(ctx, &p)
}

// RetractFact ends a fact (its history is kept) and returns it.
func (o *Owner) RetractFact(ctx context.Context, id string) (*Fact, error) {
	return do[Fact](ctx, o.c, &request{op: opRetractFact, pathArgs: []string{id}, query: o.query()})
}

// Batch applies 1 to 1,000 writes in order, all or nothing, in one transaction: UpsertEntityOperation,
// UpsertRelationshipOperation, AssertFactOperation, RetractFactOperation and RetractRelationshipOperation
// values (or pointers to them). Later operations may name what earlier ones wrote by the ids the caller
// gave. The result holds each operation's record in order; exactly one of its Entity, Relationship and
// Fact is set. The first operation refused fails the call with an *Error whose message names
// operations[i] (ErrNotFound for a missing record, ErrInvalidInput for bad input), and nothing of the
// batch is stored. Like every write it carries an Idempotency-Key, the same on each retry.
func (o *Owner) Batch(ctx context.Context, ops []MemoryOperation, opts ...CallOption) (*MemoryBatchResult, error) {
	return do[MemoryBatchResult](ctx, o.c, &request{op: opApplyMemoryBatch, query: o.query(), body: jsonBody(ApplyMemoryBatchRequest{Operations: ops}), callOptions: opts})
}

// Graph returns the neighbourhood of the node memoryEntityID: the nodes reached over at most p.Depth
// edges (default 1, at most 3) followed in p.Direction, and every edge between them; now, or as the
// service knew it at p.AsOf. p.IncludeFacts adds the facts active then about them. p may be nil.
func (o *Owner) Graph(ctx context.Context, memoryEntityID string, p *GraphParams) (*MemoryGraph, error) {
	q := o.withParams(p, "")
	q.Set("memory_entity_id", memoryEntityID)
	return do[MemoryGraph](ctx, o.c, &request{op: opGetGraph, query: q})
}

// Consolidate retracts redundant facts (same subject, predicate and normalised value) and facts about
// relationships no longer active.
func (o *Owner) Consolidate(ctx context.Context, opts ...CallOption) (*ConsolidationReport, error) {
	return do[ConsolidationReport](ctx, o.c, &request{op: opConsolidate, query: o.query(), body: []byte("{}"), callOptions: opts})
}
