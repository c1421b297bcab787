// Package engram is the Go client of Engram, memory for AI agents: a typed graph of entities and
// relationships, temporal facts whose history is kept, documents and media in one vector space, and
// exact structured queries.
//
// The models (models_gen.go) are generated from the service's OpenAPI 3.1 document by internal/gen;
// the rest is a thin surface over them: a Client (tenant-wide schema and queries), its Partition scopes,
// and Owner handles for the memory, document, media and search routes. Every call takes a
// context.Context first; lists are iter.Seq2 iterators; errors are *Error, matched with errors.Is
// against ErrNotFound, ErrRateLimited and the other Err* values.
package engram

//go:generate go run ./internal/gen -spec ../../docs/openapi.json -out models_gen.go
