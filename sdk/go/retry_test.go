package engram_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	engram "github.com/engram-memory/engram/sdk/go"
)

func TestRateLimitedCallsAreRetriedAfterRetryAfter(t *testing.T) {
	var mu sync.Mutex
	var limited []engram.Attempt
	c := newClient(t, engram.WithAPIKey(os.Getenv("ENGRAM_LIMITED_KEY")), observed(func(a engram.Attempt) {
		if a.Status == 429 {
			mu.Lock()
			limited = append(limited, a)
			mu.Unlock()
		}
	}))
	ctx := ctx(t)
	for i := range 5 { // the key allows a burst of 2, then 1 request/s
		if _, err := c.ListFields(ctx); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if len(limited) == 0 {
		t.Fatal("no call was rate limited, so no retry was observed")
	}
	for _, a := range limited {
		if a.RetryAfter <= 0 || a.Wait < a.RetryAfter || !errors.Is(a.Err, engram.ErrRateLimited) {
			t.Fatalf("a 429 is retried after its Retry-After: %+v", a)
		}
	}
}

func TestRateLimitedWithoutRetriesIsAnError(t *testing.T) {
	c, ctx := newClient(t, engram.WithAPIKey(os.Getenv("ENGRAM_LIMITED_KEY")), engram.WithMaxRetries(0)), ctx(t)
	for i := 0; i < 10; i++ {
		_, err := c.ListFields(ctx)
		if err == nil {
			continue
		}
		var apiErr *engram.Error
		if !errors.Is(err, engram.ErrRateLimited) || !errors.As(err, &apiErr) || apiErr.RetryAfter <= 0 || apiErr.Status != 429 {
			t.Fatalf("want rate_limited with retry_after, got %v", err)
		}
		time.Sleep(apiErr.RetryAfter) // leave the bucket as found for the other tests
		return
	}
	t.Fatal("10 quick calls of a 1/s key were never limited")
}

func TestAWriteRepeatedWithItsKeyIsAppliedOnce(t *testing.T) {
	var replayed []bool
	c, ctx := newClient(t, observed(func(a engram.Attempt) {
		if a.Operation == "assertFact" && a.Err == nil {
			replayed = append(replayed, a.Replayed)
		}
	})), ctx(t)
	owner := c.Owner(ownerID(t))
	key := "go-" + ownerID(t)
	first := must[*engram.Fact](t)(owner.AssertFact(ctx, engram.AssertFactRequest{Predicate: "pet", Value: "cat", Cardinality: engram.CardinalityMulti}, engram.WithIdempotencyKey(key)))
	second := must[*engram.Fact](t)(owner.AssertFact(ctx, engram.AssertFactRequest{Predicate: "pet", Value: "cat", Cardinality: engram.CardinalityMulti}, engram.WithIdempotencyKey(key)))
	if second.FactID != first.FactID || len(replayed) != 2 || replayed[0] || !replayed[1] {
		t.Fatalf("the repeat is a replay of the first answer: %s %s %v", first.FactID, second.FactID, replayed)
	}
	if n := must[*engram.FactList](t)(owner.ListFacts(ctx, &engram.ListFactsParams{Predicate: "pet"})).Count; n != 1 {
		t.Fatalf("%d facts, want 1", n)
	}
	_, err := owner.AssertFact(ctx, engram.AssertFactRequest{Predicate: "pet", Value: "dog", Cardinality: engram.CardinalityMulti}, engram.WithIdempotencyKey(key))
	if !errors.Is(err, engram.ErrConflict) {
		t.Fatalf("the key with another body: %v", err)
	}
}

// dropFirstAnswer lets the first request of an operation reach the service, then loses its answer, as
// a connection cut after the write would.
type dropFirstAnswer struct {
	path    string
	dropped bool
}

func (d *dropFirstAnswer) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && r.URL.Path == d.path && !d.dropped {
		d.dropped = true
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return nil, errors.New("connection reset by peer (simulated)")
	}
	return resp, err
}

func TestALostAnswerIsRetriedWithTheSameKeyAndAppliedOnce(t *testing.T) {
	var attempts []engram.Attempt
	c, ctx := newClient(t, engram.WithHTTPClient(&http.Client{Transport: &dropFirstAnswer{path: "/v1/memory/facts"}}), observed(func(a engram.Attempt) {
		if a.Operation == "assertFact" {
			attempts = append(attempts, a)
		}
	})), ctx(t)
	owner := c.Owner(ownerID(t))
	must[*engram.Fact](t)(owner.AssertFact(ctx, engram.AssertFactRequest{Predicate: "visited", Value: "Rome", Cardinality: engram.CardinalityMulti}))
	if len(attempts) != 2 || attempts[0].Err == nil || !attempts[1].Replayed || attempts[0].IdempotencyKey == "" || attempts[0].IdempotencyKey != attempts[1].IdempotencyKey {
		t.Fatalf("attempts: %+v", attempts)
	}
	if n := must[*engram.FactList](t)(owner.ListFacts(ctx, &engram.ListFactsParams{Predicate: "visited"})).Count; n != 1 {
		t.Fatalf("%d facts after the retried write, want 1", n)
	}
}

// The live service cannot be made to answer 502 or 503 on demand: a stand-in server does.
func TestBadGatewayAndUnavailableAreRetriedWithOneKey(t *testing.T) {
	var mu sync.Mutex
	var keys []string
	statuses := []int{502, 503, 201}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		if ua := r.Header.Get("User-Agent"); ua != "engram-sdk-go/0.1.0" {
			t.Errorf("user agent %q", ua)
		}
		status := statuses[len(keys)-1]
		w.WriteHeader(status)
		if status == 201 {
			fmt.Fprint(w, `{"memory_entity_id":"e1","entity_type":"x"}`)
		} else {
			fmt.Fprintf(w, `{"error":"try later","code":"unavailable","request_id":"r%d"}`, len(keys))
		}
	}))
	defer srv.Close()
	c, err := engram.New(engram.WithBaseURL(srv.URL), engram.WithAPIKey("k"), engram.WithBackoff(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	e, err := c.Owner("o").UpsertEntity(ctx(t), engram.UpsertEntityRequest{EntityType: "x"})
	if err != nil || e.MemoryEntityID != "e1" {
		t.Fatalf("%v %v", e, err)
	}
	if len(keys) != 3 || keys[0] == "" || keys[0] != keys[1] || keys[1] != keys[2] {
		t.Fatalf("one key on every attempt: %q", keys)
	}
	keys, statuses = nil, []int{503, 503, 503}
	c0, _ := engram.New(engram.WithBaseURL(srv.URL), engram.WithAPIKey("k"), engram.WithMaxRetries(2), engram.WithBackoff(time.Millisecond, 5*time.Millisecond))
	if _, err := c0.Owner("o").UpsertEntity(ctx(t), engram.UpsertEntityRequest{EntityType: "x"}); !errors.Is(err, engram.ErrUnavailable) || len(keys) != 3 {
		t.Fatalf("after 2 retries: %v (%d attempts)", err, len(keys))
	}
}

func TestConnectionErrorsAreRetriedThenReported(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close() // nothing listens there any more
	attempts := 0
	c, _ := engram.New(engram.WithBaseURL(base), engram.WithAPIKey("k"), engram.WithBackoff(time.Millisecond, 5*time.Millisecond),
		engram.WithObserver(func(engram.Attempt) { attempts++ }))
	_, err := c.ListFields(ctx(t))
	var apiErr *engram.Error
	if err == nil || errors.As(err, &apiErr) || attempts != 4 {
		t.Fatalf("a refused connection: %v after %d attempts, want a transport error after 4", err, attempts)
	}
}

func TestAConflictWithRetryAfterIsWaitedOutAndOneWithoutIsReported(t *testing.T) {
	var mu sync.Mutex
	var keys []string
	answers := []string{"in-progress", "created"}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		switch answers[len(keys)-1] {
		case "in-progress": // the key's first request is still running: the service says when to come back
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(409)
			fmt.Fprint(w, `{"error":"a request with this Idempotency-Key is still in progress","code":"conflict","request_id":"r1"}`)
		case "reused": // the key was used for another request: no Retry-After, nothing to wait for
			w.WriteHeader(409)
			fmt.Fprint(w, `{"error":"this Idempotency-Key was used for another request","code":"conflict","request_id":"r2"}`)
		default:
			w.Header().Set("Idempotent-Replayed", "true")
			w.WriteHeader(201)
			fmt.Fprint(w, `{"memory_entity_id":"e1","entity_type":"x"}`)
		}
	}))
	defer srv.Close()
	c, err := engram.New(engram.WithBaseURL(srv.URL), engram.WithAPIKey("k"), engram.WithBackoff(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	e, err := c.Owner("o").UpsertEntity(ctx(t), engram.UpsertEntityRequest{EntityType: "x"})
	if err != nil || e.MemoryEntityID != "e1" || len(keys) != 2 || keys[0] != keys[1] {
		t.Fatalf("retried with the same key into the replay: %v %v %q", e, err, keys)
	}
	keys, answers = nil, []string{"reused", "created"}
	if _, err := c.Owner("o").UpsertEntity(ctx(t), engram.UpsertEntityRequest{EntityType: "x"}); !errors.Is(err, engram.ErrConflict) || len(keys) != 1 {
		t.Fatalf("a reused key is reported at once: %v (%d attempts)", err, len(keys))
	}
}
