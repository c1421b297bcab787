package engram_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The README's tour is compiled as a program against this module and run against the live service,
// so the README cannot drift from the SDK.
func TestReadmeTourRuns(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, found := strings.Cut(string(readme), "<!-- tour -->\n```go\n")
	code, _, closed := strings.Cut(after, "\n```")
	if !found || !closed {
		t.Fatal("README.md has no ```go block after <!-- tour -->")
	}
	sdk, _ := filepath.Abs(".")
	dir := t.TempDir()
	mod := "module tour\n\ngo 1.23\n\nrequire github.com/engram-memory/engram/sdk/go v0.1.0\n\nreplace github.com/engram-memory/engram/sdk/go => " + sdk + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(code+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "tour")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the tour does not compile: %v\n%s", err, out)
	}
	run := exec.Command(bin)
	run.Dir = sdk // the tour reads testdata/image.png
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("the tour failed: %v\n%s", err, out)
	}
	for _, want := range []string{"city then: Lyon, now: Paris", "best hit is the photo: true", "France: 2 trips", "Norway: 1 trips"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the tour's output lacks %q:\n%s", want, out)
		}
	}
}
