package engram

import (
	"errors"
	"iter"
)

var errNotModeA = errors.New("engram: QueryDocuments needs a Mode A query (no group_by, no aggregate)")

// cursorPages follows next_cursor from page to page, yielding each record once. fetch is given "" for
// the first page.
func cursorPages[T any](fetch func(cursor string) ([]T, *string, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		cursor := ""
		for {
			items, next, err := fetch(cursor)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, item := range items {
				if !yield(item, nil) {
					return
				}
			}
			if next == nil || *next == "" || len(items) == 0 {
				return
			}
			cursor = *next
		}
	}
}
