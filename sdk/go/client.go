package engram

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// Version is the SDK's version; it is sent in the User-Agent.
const Version = "0.1.0"

const userAgent = "engram-sdk-go/" + Version

// DefaultBaseURL is used when neither WithBaseURL nor ENGRAM_BASE_URL gives one.
const DefaultBaseURL = "http://127.0.0.1:8080"

// ErrMissingAPIKey is returned by New when no key was given and ENGRAM_API_KEY is empty.
var ErrMissingAPIKey = errors.New("engram: no API key: pass engram.WithAPIKey(key) or set ENGRAM_API_KEY")

// Client calls one Engram service with one API key. It is safe for concurrent use.
//
// The Client is the tenant-wide Scope (schema, query, owners, erasure receipts); Partition returns the
// same surface scoped to one partition.
type Client struct {
	*Scope
	baseURL    *url.URL
	apiKey     string
	http       *http.Client
	timeout    time.Duration
	maxRetries int
	minBackoff time.Duration
	maxBackoff time.Duration
	observer   func(Attempt)
}

// Option configures a Client.
type Option func(*Client)

// WithBaseURL sets the service's address (default: ENGRAM_BASE_URL, else DefaultBaseURL).
func WithBaseURL(u string) Option {
	return func(c *Client) { c.baseURL, _ = url.Parse(strings.TrimRight(u, "/")) }
}

// WithAPIKey sets the API key (default: ENGRAM_API_KEY).
func WithAPIKey(key string) Option { return func(c *Client) { c.apiKey = key } }

// WithHTTPClient replaces the http.Client (its Timeout should be 0: WithTimeout bounds each attempt).
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// WithTimeout bounds each attempt until the answer's headers and, for JSON answers, its body have
// arrived (default 60 s). Streams (downloads, exports) are bounded by the context only once they flow.
func WithTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// WithMaxRetries sets how many times a request is retried after a 429, 502, 503 or a connection error
// (default 3; 0 disables retries).
func WithMaxRetries(n int) Option { return func(c *Client) { c.maxRetries = max(n, 0) } }

// WithBackoff sets the exponential backoff's first and largest wait (default 250 ms and 8 s). Each wait
// is drawn at random up to the bound (full jitter); a Retry-After from the service takes precedence.
func WithBackoff(first, largest time.Duration) Option {
	return func(c *Client) { c.minBackoff, c.maxBackoff = first, largest }
}

// WithObserver calls f after every attempt of every request: for logs, metrics or tests.
func WithObserver(f func(Attempt)) Option { return func(c *Client) { c.observer = f } }

// Attempt describes one try of a request, as WithObserver reports it.
type Attempt struct {
	Operation      string        // the operationId of the OpenAPI document, e.g. "assertFact"
	Method         string        // HTTP method
	URL            string        // the full URL, query included
	Number         int           // 1 for the first try
	Status         int           // the answer's status; 0 when none came
	Err            error         // the error of this attempt (transport or API), nil on success
	RetryAfter     time.Duration // the service's Retry-After, when it sent one
	Wait           time.Duration // the wait before the next attempt; 0 when there is none
	IdempotencyKey string        // the key a write carried
	Replayed       bool          // the service answered with a kept answer (Idempotent-Replayed: true)
}

// New returns a Client. Without options it reads ENGRAM_BASE_URL and ENGRAM_API_KEY.
func New(opts ...Option) (*Client, error) {
	c := &Client{http: &http.Client{}, timeout: 60 * time.Second, maxRetries: 3,
		minBackoff: 250 * time.Millisecond, maxBackoff: 8 * time.Second}
	base := os.Getenv("ENGRAM_BASE_URL")
	if base == "" {
		base = DefaultBaseURL
	}
	WithBaseURL(base)(c)
	c.apiKey = os.Getenv("ENGRAM_API_KEY")
	for _, o := range opts {
		o(c)
	}
	if c.baseURL == nil || c.baseURL.Scheme == "" || c.baseURL.Host == "" {
		return nil, errors.New("engram: the base URL must be absolute, like http://127.0.0.1:8080")
	}
	if c.apiKey == "" {
		return nil, ErrMissingAPIKey
	}
	c.Scope = &Scope{c: c}
	return c, nil
}

// Partition returns the surface of one partition: its schema, its queries, its owners.
func (c *Client) Partition(name string) *Scope { return &Scope{c: c, partition: name} }

// CallOption adjusts one call.
type CallOption func(*callConfig)

type callConfig struct {
	idempotencyKey string
	readers        []string
}

// WithIdempotencyKey sends this Idempotency-Key instead of a generated one: a write repeated with the
// same key (even from another process) is applied once, and the repeat gets the first answer again.
func WithIdempotencyKey(key string) CallOption { return func(c *callConfig) { c.idempotencyKey = key } }

// WithReaders makes a new document or media record readable by these principals only.
func WithReaders(principals ...string) CallOption {
	return func(c *callConfig) { c.readers = principals }
}

func applyCallOptions(opts []CallOption) callConfig {
	var cfg callConfig
	for _, o := range opts {
		o(&cfg)
	}
	return cfg
}

// newIdempotencyKey returns a random key, made once per logical call so that every retry carries it.
func newIdempotencyKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "engram-go-" + hex.EncodeToString(b[:])
}

// OpenAPI returns the service's OpenAPI 3.1 document.
func (c *Client) OpenAPI(ctx context.Context) (map[string]any, error) {
	var doc map[string]any
	err := c.call(ctx, &request{op: opGetOpenAPI}, &doc)
	return doc, err
}

// Status returns the service's readiness (GET /status, the one public route).
func (c *Client) Status(ctx context.Context) (*Status, error) {
	return do[Status](ctx, c, &request{op: opGetStatus})
}

// Index returns the service's pointers to its API, status route and docs (GET /).
func (c *Client) Index(ctx context.Context) (*Index, error) {
	return do[Index](ctx, c, &request{op: opGetIndex})
}

// Ptr returns a pointer to v: for optional fields such as MaxDistance or ObservedAt.
func Ptr[T any](v T) *T { return &v }
