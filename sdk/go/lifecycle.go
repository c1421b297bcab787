package engram

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
)

// Export writes the owner's whole state to w as NDJSON (one ExportLine per line), byte for byte as the
// service sent it, so Import of those bytes restores it exactly. It returns the bytes written.
func (o *Owner) Export(ctx context.Context, w io.Writer) (int64, error) {
	resp, err := o.c.send(ctx, &request{op: opExportOwner, query: o.query()}, true)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return n, fmt.Errorf("engram: exportOwner: %w", err)
	}
	return n, nil
}

// ExportLines yields the owner's export line by line, decoded (line.Entity, line.Fact, ...).
func (o *Owner) ExportLines(ctx context.Context) iter.Seq2[ExportLine, error] {
	return func(yield func(ExportLine, error) bool) {
		resp, err := o.c.send(ctx, &request{op: opExportOwner, query: o.query()}, true)
		if err != nil {
			yield(ExportLine{}, err)
			return
		}
		defer resp.Body.Close()
		scanner := bufio.NewScanner(resp.Body)
		scanner.Buffer(make([]byte, 0, 64<<10), 256<<20) // a line holds a document's bytes in base64
		for scanner.Scan() {
			if len(bytes.TrimSpace(scanner.Bytes())) == 0 {
				continue
			}
			var line ExportLine
			if err := json.Unmarshal(scanner.Bytes(), &line); err != nil {
				yield(ExportLine{}, fmt.Errorf("engram: exportOwner: %w", err))
				return
			}
			if !yield(line, nil) {
				return
			}
		}
		if err := scanner.Err(); err != nil {
			yield(ExportLine{}, fmt.Errorf("engram: exportOwner: %w", err))
		}
	}
}

// Import loads an export (NDJSON, as Export wrote it) into this owner, which must be empty. The stream
// is read into memory first so that a retried import sends the same bytes under the same key.
func (o *Owner) Import(ctx context.Context, r io.Reader, opts ...CallOption) (*ImportReport, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("engram: importOwner: reading the export: %w", err)
	}
	return do[ImportReport](ctx, o.c, &request{op: opImportOwner, query: o.query(), body: data, contentType: "application/x-ndjson", callOptions: opts})
}

// Erase erases the owner: from the answer on, it reads as one that never existed. The receipt's state
// goes from pending or running to complete; follow it with Scope.Erasure(ctx, receipt.ReceiptID).
func (o *Owner) Erase(ctx context.Context) (*ErasureAccepted, error) {
	return do[ErasureAccepted](ctx, o.c, &request{op: opEraseOwner, query: o.query()})
}
