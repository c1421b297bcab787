package engram

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every operation of the document has an SDK method: each op<OperationId> the generator declares is used
// by the hand-written surface, so a route added to docs/openapi.json fails here until it gets one.
func TestEveryOperationHasAMethod(t *testing.T) {
	used := map[string]bool{}
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || strings.HasSuffix(f, "_gen.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				used[id.Name] = true
			}
			return true
		})
	}
	for _, op := range operations {
		if !used["op"+strings.ToUpper(op.id[:1])+op.id[1:]] && !used[opVarName(op.id)] {
			t.Errorf("operation %s (%s %s) has no SDK method", op.id, op.method, op.path)
		}
	}
}

func opVarName(id string) string {
	// The generator's naming (goName) capitalises initialisms: getOpenApi -> opGetOpenAPI.
	return "op" + strings.ReplaceAll(strings.ToUpper(id[:1])+id[1:], "Api", "API")
}

func TestEveryErrorCodeHasASentinel(t *testing.T) {
	for _, code := range ErrorCodeValues() {
		e := &Error{Code: code}
		matched := 0
		for _, s := range []error{ErrInvalidInput, ErrUnauthorized, ErrNotFound, ErrMethodNotAllowed, ErrConflict, ErrGone,
			ErrPayloadTooLarge, ErrMediaProcessingUnavailable, ErrMisdirected, ErrRateLimited, ErrInternal, ErrProviderError, ErrUnavailable} {
			if e.Is(s) {
				matched++
			}
		}
		if matched != 1 {
			t.Errorf("code %s matches %d Err* values, want 1", code, matched)
		}
	}
}

func TestContentTypeFromBytesThenExtension(t *testing.T) {
	fixtures := map[string]string{"image.png": "image/png", "image.jpg": "image/jpeg"}
	for name, want := range fixtures {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if got := sniffContentType(data, ""); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	cases := []struct{ data, name, want string }{
		{"GIF89a...", "", "image/gif"}, {"RIFF\x00\x00\x00\x00WEBPVP8 ", "", "image/webp"}, {"RIFF\x00\x00\x00\x00WAVEfmt ", "", "audio/wav"},
		{"fLaC\x00", "", "audio/flac"}, {"OggS\x00", "", "audio/ogg"}, {"ID3\x04", "", "audio/mpeg"}, {"\xff\xfb\x90", "", "audio/mpeg"},
		{"\x00\x00\x00\x20ftypM4A ", "", "audio/mp4"}, {"\x1a\x45\xdf\xa3", "", "audio/webm"},
		{"????", "clip.M4A", "audio/mp4"}, {"????", "unknown.bin", ""},
	}
	for _, c := range cases {
		if got := sniffContentType([]byte(c.data), c.name); got != c.want {
			t.Errorf("%q %q: %q, want %q", c.data, c.name, got, c.want)
		}
	}
}
