package engram

import (
	"context"
	"iter"
	"net/url"
)

// Scope is the tenant (the Client itself) or one partition of it (Client.Partition). Schema routes and
// queries are tenant-wide on the Client and scoped to the partition on a partition's Scope, as the
// contract says; owners made from a partition's Scope carry the partition in every call.
type Scope struct {
	c         *Client
	partition string
}

// PartitionName is the scope's partition ("" on the Client: the tenant as a whole).
func (s *Scope) PartitionName() string { return s.partition }

// Owner returns the handle of one owner (a user, customer or agent session) for the memory, document,
// media and search routes.
func (s *Scope) Owner(entityID string) *Owner {
	return &Owner{c: s.c, id: entityID, partition: s.partition}
}

func (s *Scope) query() url.Values {
	q := url.Values{}
	if s.partition != "" {
		q.Set("partition", s.partition)
	}
	return q
}

// DeclareFields declares or re-declares fields by name; the others stay. It answers every declared field.
// A new or changed field is backfilled in the background: ListFields reports its progress.
func (s *Scope) DeclareFields(ctx context.Context, fields ...FieldDeclaration) (*FieldList, error) {
	return do[FieldList](ctx, s.c, &request{op: opDeclareFields, query: s.query(), body: jsonBody(DeclareFieldsRequest{Fields: fields})})
}

// ListFields returns every declared field with its coverage and backfill state.
func (s *Scope) ListFields(ctx context.Context) (*FieldList, error) {
	return do[FieldList](ctx, s.c, &request{op: opListFields, query: s.query()})
}

// RemoveField removes a declared field and answers the fields still declared.
func (s *Scope) RemoveField(ctx context.Context, name string) (*FieldList, error) {
	return do[FieldList](ctx, s.c, &request{op: opRemoveField, pathArgs: []string{name}, query: s.query()})
}

// Query runs a structured query: a page of documents (Mode A: result.Documents) or, with GroupBy or
// Aggregate, groups with their aggregates (Mode B: result.Groups).
func (s *Scope) Query(ctx context.Context, q QueryRequest) (*QueryResult, error) {
	return do[QueryResult](ctx, s.c, &request{op: opQuery, query: s.query(), body: jsonBody(q)})
}

// QueryDocuments runs a Mode A query page after page (offset += limit while has_more), yielding every
// matching document once.
func (s *Scope) QueryDocuments(ctx context.Context, q QueryRequest) iter.Seq2[Document, error] {
	return func(yield func(Document, error) bool) {
		for {
			page, err := s.Query(ctx, q)
			if err == nil && page.Documents == nil {
				err = errNotModeA
			}
			if err != nil {
				yield(Document{}, err)
				return
			}
			for _, d := range page.Documents.Documents {
				if !yield(d, nil) {
					return
				}
			}
			if !page.Documents.HasMore || len(page.Documents.Documents) == 0 {
				return
			}
			q.Offset += len(page.Documents.Documents)
		}
	}
}

// Erasure returns the receipt of an owner's erasure (see Owner.Erase).
func (s *Scope) Erasure(ctx context.Context, receiptID string) (*ErasureReceipt, error) {
	return do[ErasureReceipt](ctx, s.c, &request{op: opGetErasure, pathArgs: []string{receiptID}, query: s.query()})
}
