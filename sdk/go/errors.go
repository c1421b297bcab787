package engram

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Error is an error answer of the service: every route answers `{ error, code, request_id }`.
//
// Test what went wrong with errors.Is against the Err* values (errors.Is(err, engram.ErrNotFound)), and
// read the details with errors.As:
//
//	var apiErr *engram.Error
//	if errors.As(err, &apiErr) { log.Print(apiErr.RequestID) }
type Error struct {
	Operation  string        // the operationId that failed, e.g. "getEntity"
	Status     int           // HTTP status
	Code       ErrorCode     // the API's code, e.g. ErrorCodeNotFound
	Message    string        // the service's message, naming the field and the rule
	RequestID  string        // the request's id, to quote when asking for help
	RetryAfter time.Duration // from Retry-After (429, and 503 on a full disk); 0 when absent
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("engram: %s: %d %s: %s", e.Operation, e.Status, e.Code, e.Message)
	if e.RequestID != "" {
		msg += " (request " + e.RequestID + ")"
	}
	return msg
}

// Is makes errors.Is(err, engram.ErrNotFound) and its siblings true for an Error of that code.
func (e *Error) Is(target error) bool {
	k, ok := target.(*codeError)
	return ok && k.code == e.Code
}

// codeError is the type of the Err* values: one per code, matched by Error.Is.
type codeError struct{ code ErrorCode }

func (k *codeError) Error() string { return "engram: " + string(k.code) }

// One value per code of the API (the Error schema's enum); errors.Is(err, ErrX) tells which it was.
var (
	ErrInvalidInput               error = &codeError{ErrorCodeInvalidInput}
	ErrUnauthorized               error = &codeError{ErrorCodeUnauthorized}
	ErrNotFound                   error = &codeError{ErrorCodeNotFound}
	ErrMethodNotAllowed           error = &codeError{ErrorCodeMethodNotAllowed}
	ErrConflict                   error = &codeError{ErrorCodeConflict}
	ErrGone                       error = &codeError{ErrorCodeGone}
	ErrPayloadTooLarge            error = &codeError{ErrorCodePayloadTooLarge}
	ErrMediaProcessingUnavailable error = &codeError{ErrorCodeMediaProcessingUnavailable}
	ErrMisdirected                error = &codeError{ErrorCodeMisdirected}
	ErrRateLimited                error = &codeError{ErrorCodeRateLimited}
	ErrInternal                   error = &codeError{ErrorCodeInternal}
	ErrProviderError              error = &codeError{ErrorCodeProviderError}
	ErrUnavailable                error = &codeError{ErrorCodeUnavailable}
)

// codeOfStatus names answers without an error body (a proxy's 502 page), so errors.Is still works.
var codeOfStatus = map[int]ErrorCode{
	400: ErrorCodeInvalidInput, 401: ErrorCodeUnauthorized, 404: ErrorCodeNotFound, 405: ErrorCodeMethodNotAllowed,
	409: ErrorCodeConflict, 410: ErrorCodeGone, 413: ErrorCodePayloadTooLarge, 421: ErrorCodeMisdirected, 422: ErrorCodeMediaProcessingUnavailable,
	429: ErrorCodeRateLimited, 500: ErrorCodeInternal, 502: ErrorCodeProviderError, 503: ErrorCodeUnavailable,
}

// readError turns an answer of status >= 300 into an *Error, and closes its body.
func readError(op string, resp *http.Response) *Error {
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	e := &Error{Operation: op, Status: resp.StatusCode, RequestID: resp.Header.Get("X-Request-Id")}
	var body ErrorBody
	if json.Unmarshal(data, &body) == nil && body.Code != "" {
		e.Code, e.Message = body.Code, body.Error
		if body.RequestID != "" {
			e.RequestID = body.RequestID
		}
	} else {
		e.Code, e.Message = codeOfStatus[resp.StatusCode], http.StatusText(resp.StatusCode)
	}
	e.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"))
	return e
}

// parseRetryAfter reads delay-seconds or an HTTP date (RFC 9110, 10.2.3).
func parseRetryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 {
		return time.Duration(secs * float64(time.Second))
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(time.Until(at), 0)
	}
	return 0
}
