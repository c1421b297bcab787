package engram

import (
	"context"
	"iter"
	"net/url"
	"strings"
)

func (o *Owner) withReaders(opts []CallOption) url.Values {
	q := o.query()
	if cfg := applyCallOptions(opts); len(cfg.readers) > 0 {
		q.Set("readers", strings.Join(cfg.readers, ","))
	}
	return q
}

// CreateDocument stores a text document (WithReaders limits who may read it).
func (o *Owner) CreateDocument(ctx context.Context, req CreateDocumentRequest, opts ...CallOption) (*Document, error) {
	return do[Document](ctx, o.c, &request{op: opCreateDocument, query: o.withReaders(opts), body: jsonBody(req), callOptions: opts})
}

// CreateDocuments stores 1 to 100 text documents in one transaction: all or none.
func (o *Owner) CreateDocuments(ctx context.Context, docs []BatchDocument, opts ...CallOption) (*DocumentList, error) {
	return do[DocumentList](ctx, o.c, &request{op: opCreateDocuments, query: o.query(), body: jsonBody(CreateDocumentsRequest{Documents: docs}), callOptions: opts})
}

// GetDocument returns a document or media record, never its bytes (see Download).
func (o *Owner) GetDocument(ctx context.Context, docID string) (*Document, error) {
	return do[Document](ctx, o.c, &request{op: opGetDocument, pathArgs: []string{docID}, query: o.query()})
}

// ListDocuments returns one page of documents, newest first; Documents iterates over all of them.
func (o *Owner) ListDocuments(ctx context.Context, p *ListDocumentsParams) (*DocumentList, error) {
	q := o.query()
	p.encode(q)
	return do[DocumentList](ctx, o.c, &request{op: opListDocuments, query: q})
}

// Documents yields every document, page after page (p.Limit per page, from p.Offset).
func (o *Owner) Documents(ctx context.Context, p *ListDocumentsParams) iter.Seq2[Document, error] {
	page := ListDocumentsParams{Limit: 100}
	if p != nil {
		page = *p
	}
	if page.Limit == 0 {
		page.Limit = 100
	}
	return func(yield func(Document, error) bool) {
		for {
			list, err := o.ListDocuments(ctx, &page)
			if err != nil {
				yield(Document{}, err)
				return
			}
			for _, d := range list.Documents {
				if !yield(d, nil) {
					return
				}
			}
			if len(list.Documents) < page.Limit {
				return
			}
			page.Offset += len(list.Documents)
		}
	}
}

// DeleteDocument soft-deletes a record (hidden from lists, search and queries; RestoreDocument undoes it).
func (o *Owner) DeleteDocument(ctx context.Context, docID string) (*Document, error) {
	return do[Document](ctx, o.c, &request{op: opDeleteDocument, pathArgs: []string{docID}, query: o.query()})
}

// PurgeDocument hard-deletes a record: its bytes, vectors and index entries are removed for good.
func (o *Owner) PurgeDocument(ctx context.Context, docID string) error {
	q := o.query()
	(&DeleteDocumentParams{Hard: true}).encode(q)
	return o.c.call(ctx, &request{op: opDeleteDocument, pathArgs: []string{docID}, query: q}, nil)
}

// RestoreDocument brings back a soft-deleted record.
func (o *Owner) RestoreDocument(ctx context.Context, docID string, opts ...CallOption) (*Document, error) {
	return do[Document](ctx, o.c, &request{op: opRestoreDocument, pathArgs: []string{docID}, query: o.query(), callOptions: opts})
}
