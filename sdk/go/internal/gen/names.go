package main

import (
	"strings"
	"unicode"
)

// initialisms are written in capitals, as Go's own names do (DocID, not DocId).
var initialisms = map[string]string{"id": "ID", "ids": "IDs", "cid": "CID", "url": "URL", "api": "API", "http": "HTTP", "json": "JSON", "uri": "URI"}

// goName turns snake_case, camelCase, kebab or slashed words ("text/plain") into an exported Go name.
func goName(s string) string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	runes := []rune(s)
	for i, r := range runes {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && i > 0 && unicode.IsLower(runes[i-1]):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	var b strings.Builder
	for _, w := range words {
		if up, ok := initialisms[strings.ToLower(w)]; ok {
			b.WriteString(up)
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	if b.Len() == 0 || unicode.IsDigit([]rune(b.String())[0]) {
		return "X" + b.String()
	}
	return b.String()
}

// genericPropertyNames make poor type names alone ("State", "Code"): their enums are named after the
// object that holds them too (ErrorCode, FieldType).
var genericPropertyNames = map[string]bool{"type": true, "state": true, "code": true, "status": true, "kind": true, "op": true, "dir": true}

// preferredNames renames inline types whose derived names read badly. A name missing here falls back to
// the derived one (Parent + Property), so a new schema in the document never needs an entry.
var preferredNames = map[string]string{
	"Error":                                 "ErrorBody", // the package's Error is the error type callers get
	"ErrorBodyCode":                         "ErrorCode",
	"CreateDocumentsRequestDocumentsItem":   "BatchDocument",
	"SearchBatchRequestQueriesItem":         "BatchQuery",
	"DeclareFieldsRequestFieldsItem":        "FieldDeclaration",
	"QueryRequestSortItem":                  "QuerySort",
	"QueryRequestAggregateItem":             "QueryAggregate",
	"QuerySortDir":                          "SortDirection",
	"QueryAggregateOp":                      "AggregateOp",
	"ErasureAcceptedState":                  "ErasureState",
	"StatusStatus":                          "ServiceStatus",
	"StatusEmbedderKind":                    "EmbedderKind",
	"ForgetReportErased":                    "ForgetCounts",
	"ImportReportImported":                  "ImportCounts",
	"UploadMediaRequestModality":            "MediaModality",
	"ContentType":                           "TextContentType",
	"ExportLineDocumentRecordPassagesItem":  "ExportPassage",
	"ExportLineEntityRecord":                "ExportEntity",
	"ExportLineRelationshipRecord":          "ExportRelationship",
	"ExportLineFactRecord":                  "ExportFact",
	"ExportLineDocumentRecord":              "ExportDocument",
	"FieldDeclarationSource":                "FieldSource",
	"DeclareFieldsRequestFieldsItemSource":  "FieldSource",
	"GetGraphParams":                        "GraphParams",
	"Direction":                             "GraphDirection",
	"ApplyMemoryBatchRequestOperationsItem": "MemoryOperation",
	"MemoryBatchResultResultsItem":          "MemoryRecord",
}

func preferred(name string) string {
	if p, ok := preferredNames[name]; ok {
		return p
	}
	return name
}
