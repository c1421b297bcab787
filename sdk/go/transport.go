package engram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// request is one logical call: retried attempts of it send the same bytes and the same Idempotency-Key.
type request struct {
	op          operation
	pathArgs    []string // the path's {placeholders}, in order
	query       url.Values
	body        []byte // JSON unless contentType says otherwise
	contentType string
	callOptions []CallOption
}

var errAttemptTimeout = errors.New("engram: attempt timed out")

// call sends the request and decodes a JSON answer into out (nil: the body is discarded).
func (c *Client) call(ctx context.Context, r *request, out any) error {
	resp, err := c.send(ctx, r, false)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("engram: %s: reading the answer: %w", r.op.id, err)
	}
	if out == nil || len(data) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("engram: %s: decoding the answer: %w", r.op.id, err)
	}
	return nil
}

// do sends the request and decodes its JSON answer into a new T.
func do[T any](ctx context.Context, c *Client, r *request) (*T, error) {
	var out T
	if err := c.call(ctx, r, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// jsonBody marshals a request body.
func jsonBody(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("engram: a request body does not marshal: %v", err)) // only a caller's unmarshalable Scalar gets here
	}
	return data
}

// send runs the attempts of a request until one answers 2xx, one fails for good, or retries run out.
// stream: the answer's body is handed on, so the attempt's timeout stops at its headers.
func (c *Client) send(ctx context.Context, r *request, stream bool) (*http.Response, error) {
	cfg := applyCallOptions(r.callOptions)
	key := ""
	if r.op.idempotent {
		key = cfg.idempotencyKey
		if key == "" {
			key = newIdempotencyKey()
		}
	}
	target := c.url(r)
	for attempt := 1; ; attempt++ {
		resp, err := c.attempt(ctx, r, target, key, stream)
		info := Attempt{Operation: r.op.id, Method: r.op.method, URL: target, Number: attempt, Err: err, IdempotencyKey: key}
		retry := false
		if err == nil {
			info.Status = resp.StatusCode
			info.Replayed = resp.Header.Get("Idempotent-Replayed") == "true"
			if resp.StatusCode >= 300 {
				apiErr := readError(r.op.id, resp)
				info.Err, info.RetryAfter = apiErr, apiErr.RetryAfter
				// A 409 with Retry-After: the Idempotency-Key's first request is still running; its replay will come.
				inProgress := resp.StatusCode == 409 && apiErr.RetryAfter > 0
				retry = resp.StatusCode == 429 || resp.StatusCode == 502 || resp.StatusCode == 503 || inProgress
			}
		} else {
			// A connection that failed or dropped is retried (writes carry their key, so they apply once);
			// the caller's cancellation and an attempt that ran out of time are not.
			retry = ctx.Err() == nil && !errors.Is(err, errAttemptTimeout)
		}
		canRetry := info.Err != nil && retry && attempt <= c.maxRetries
		if canRetry {
			info.Wait = c.backoff(attempt, info.RetryAfter)
		}
		if c.observer != nil {
			c.observer(info)
		}
		if info.Err == nil {
			return resp, nil
		}
		if !canRetry {
			return nil, info.Err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(info.Wait):
		}
	}
}

// backoff is the wait before retry n: the service's Retry-After plus a little jitter when it sent one
// (so that many clients told the same do not return at the same instant), else full jitter up to an
// exponentially growing bound.
func (c *Client) backoff(n int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return retryAfter + rand.N(retryAfter/10+time.Millisecond)
	}
	bound := c.minBackoff << (n - 1)
	if bound > c.maxBackoff || bound <= 0 {
		bound = c.maxBackoff
	}
	return c.minBackoff/2 + rand.N(bound-c.minBackoff/2+1)
}

func (c *Client) url(r *request) string {
	path := r.op.path
	for _, arg := range r.pathArgs {
		start := strings.IndexByte(path, '{')
		end := strings.IndexByte(path, '}')
		path = path[:start] + url.PathEscape(arg) + path[end+1:]
	}
	u := *c.baseURL
	u.Path = strings.TrimRight(u.Path, "/") + path
	u.RawQuery = r.query.Encode()
	return u.String()
}

func (c *Client) attempt(ctx context.Context, r *request, target, key string, stream bool) (*http.Response, error) {
	actx, cancel := context.WithCancelCause(ctx)
	timer := time.AfterFunc(c.timeout, func() { cancel(errAttemptTimeout) })
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(actx, r.op.method, target, body)
	if err != nil {
		timer.Stop()
		cancel(nil)
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.apiKey)
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "application/json")
	if r.body != nil {
		ct := r.contentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		timer.Stop()
		cause := context.Cause(actx)
		cancel(nil)
		if errors.Is(cause, errAttemptTimeout) {
			return nil, fmt.Errorf("engram: %s: no answer within %s: %w", r.op.id, c.timeout, errAttemptTimeout)
		}
		return nil, fmt.Errorf("engram: %s: %w", r.op.id, err)
	}
	if stream && resp.StatusCode < 300 {
		timer.Stop() // the stream flows at the caller's pace, bounded by ctx
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: func() { timer.Stop(); cancel(nil) }}
	return resp, nil
}

// cancelOnClose releases the attempt's context once the caller is done with the body.
type cancelOnClose struct {
	io.ReadCloser
	cancel func()
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}
