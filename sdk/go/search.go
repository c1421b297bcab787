package engram

import "context"

// Search finds the owner's documents and media by text, with every option of GET /v1/search.
func (o *Owner) Search(ctx context.Context, p SearchParams) (*SearchResults, error) {
	q := o.query()
	p.encode(q)
	return do[SearchResults](ctx, o.c, &request{op: opSearch, query: q})
}

// Recall is the default search: the service's default mode (hybrid) and number of hits.
func (o *Owner) Recall(ctx context.Context, text string) (*SearchResults, error) {
	return o.Search(ctx, SearchParams{Q: text})
}

// SearchByVector searches with the caller's own embedding (of the index's dimension).
func (o *Owner) SearchByVector(ctx context.Context, req SearchByVectorRequest) (*EmbedSearchResults, error) {
	return do[EmbedSearchResults](ctx, o.c, &request{op: opSearchByVector, query: o.query(), body: jsonBody(req)})
}

// SearchBatch runs up to 32 searches in one call; the answer holds one list of hits per query, in order.
func (o *Owner) SearchBatch(ctx context.Context, queries ...BatchQuery) (*BatchSearchResults, error) {
	return do[BatchSearchResults](ctx, o.c, &request{op: opSearchBatch, query: o.query(), body: jsonBody(SearchBatchRequest{Queries: queries})})
}
