package engram_test

import (
	"errors"
	"strings"
	"testing"

	engram "github.com/engram-memory/engram/sdk/go"
)

func TestNotFoundCarriesTheRequestID(t *testing.T) {
	c, ctx := newClient(t), ctx(t)
	_, err := c.Owner(ownerID(t)).GetEntity(ctx, "nobody")
	var apiErr *engram.Error
	if !errors.Is(err, engram.ErrNotFound) || !errors.As(err, &apiErr) {
		t.Fatalf("want a not_found *engram.Error, got %v", err)
	}
	if apiErr.Status != 404 || apiErr.Code != engram.ErrorCodeNotFound || apiErr.RequestID == "" || apiErr.Operation != "getEntity" {
		t.Fatalf("%+v", apiErr)
	}
	if errors.Is(err, engram.ErrConflict) {
		t.Fatal("a not_found is no conflict")
	}
}

func TestInvalidInputNamesTheField(t *testing.T) {
	c, ctx := newClient(t), ctx(t)
	_, err := c.Owner(ownerID(t)).AssertFact(ctx, engram.AssertFactRequest{Predicate: "colour", Value: "blue", SubjectType: "planet"})
	var apiErr *engram.Error
	if !errors.As(err, &apiErr) || !errors.Is(err, engram.ErrInvalidInput) || apiErr.Status != 400 || !strings.Contains(apiErr.Message, "subject_type") {
		t.Fatalf("want invalid_input naming subject_type, got %v", err)
	}
}

func TestUnauthorizedWithABadKey(t *testing.T) {
	c, ctx := newClient(t, engram.WithAPIKey("sk_not_a_key_0123456789")), ctx(t)
	_, err := c.ListFields(ctx)
	var apiErr *engram.Error
	if !errors.Is(err, engram.ErrUnauthorized) || !errors.As(err, &apiErr) || apiErr.Status != 401 || apiErr.RequestID == "" {
		t.Fatalf("want unauthorized, got %v", err)
	}
}

func TestMissingAPIKeyIsAClearError(t *testing.T) {
	t.Setenv("ENGRAM_API_KEY", "")
	if _, err := engram.New(); !errors.Is(err, engram.ErrMissingAPIKey) || !strings.Contains(err.Error(), "ENGRAM_API_KEY") {
		t.Fatalf("got %v", err)
	}
	if _, err := engram.New(engram.WithAPIKey("k"), engram.WithBaseURL("not a url")); err == nil {
		t.Fatal("a relative base URL is refused")
	}
}

func TestClientReadsTheEnvironment(t *testing.T) {
	c, err := engram.New(engram.WithObserver(record))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := c.Index(ctx(t))
	if err != nil || idx.API == "" {
		t.Fatalf("index through ENGRAM_BASE_URL and ENGRAM_API_KEY: %+v %v", idx, err)
	}
	st, err := c.Status(ctx(t))
	if err != nil || st.Status != engram.ServiceStatusOk {
		t.Fatalf("status: %+v %v", st, err)
	}
	doc, err := c.OpenAPI(ctx(t))
	if err != nil || !strings.HasPrefix(doc["openapi"].(string), "3.1") {
		t.Fatalf("openapi: %v", err)
	}
}
