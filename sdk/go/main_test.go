package engram_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	engram "github.com/engram-memory/engram/sdk/go"
)

// The suite runs against a live service (sdk/live-service.sh go): ENGRAM_BASE_URL and the keys of the
// Go SDK's own tenant come from the environment.

var (
	calledMu sync.Mutex
	called   = map[string]bool{} // operationIds answered 2xx through the SDK during this run
)

func record(a engram.Attempt) {
	if a.Err == nil {
		calledMu.Lock()
		called[a.Operation] = true
		calledMu.Unlock()
	}
}

func TestMain(m *testing.M) {
	for _, v := range []string{"ENGRAM_BASE_URL", "ENGRAM_API_KEY", "ENGRAM_ADMIN_KEY", "ENGRAM_LIMITED_KEY", "ENGRAM_MULTI_KEY"} {
		if os.Getenv(v) == "" {
			fmt.Fprintf(os.Stderr, "%s is not set: run the suite through sdk/live-service.sh go\n", v)
			os.Exit(2)
		}
	}
	code := m.Run()
	// Every route of the document is called at least once through the SDK (checked on full runs only).
	if code == 0 && os.Getenv("ENGRAM_SKIP_ROUTE_COVERAGE") == "" && testingRunFlagEmpty() {
		var missing []string
		for _, id := range documentOperationIDs() {
			if !called[id] {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			sort.Strings(missing)
			fmt.Printf("--- FAIL: route coverage: no test called %v through the SDK\n", missing)
			code = 1
		}
	}
	os.Exit(code)
}

func testingRunFlagEmpty() bool {
	for _, a := range os.Args[1:] {
		if len(a) > 10 && (a[:10] == "-test.run=" || a[:10] == "-test.skip") {
			return false
		}
	}
	return true
}

// documentOperationIDs lists the operationIds of docs/openapi.json.
func documentOperationIDs() []string {
	raw, err := os.ReadFile("../../docs/openapi.json")
	if err != nil {
		panic(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		panic(err)
	}
	var ids []string
	for _, methods := range doc.Paths {
		for _, op := range methods {
			ids = append(ids, op.OperationID)
		}
	}
	return ids
}

// newClient is a client of the Go tenant that records the operations it calls.
func newClient(t *testing.T, opts ...engram.Option) *engram.Client {
	t.Helper()
	opts = append([]engram.Option{engram.WithObserver(record), engram.WithBackoff(50*time.Millisecond, time.Second)}, opts...)
	c, err := engram.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// observed chains an observer after the coverage recorder.
func observed(f func(engram.Attempt)) engram.Option {
	return engram.WithObserver(func(a engram.Attempt) { record(a); f(a) })
}

// ownerID is an owner no other test (or earlier run) uses.
func ownerID(t *testing.T) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "go-" + hex.EncodeToString(b[:])
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return c
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// collect drains an iterator, failing the test on its error.
func collect[T any](t *testing.T, seq func(func(T, error) bool)) []T {
	t.Helper()
	var out []T
	for v, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}
