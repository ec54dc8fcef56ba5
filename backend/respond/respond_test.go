package respond

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/backend/strictjson"
)

// TestStoreError: an unknown resource is 404 RESOURCE_UNKNOWN and logs
// nothing; any other failure is 503 SERVICE_UNAVAILABLE, never 500, and
// logs what was being done with the cause.
func TestStoreError(t *testing.T) {
	var logged bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logged, nil))
	if e := StoreError(log, fmt.Errorf("get: %w", store.ErrNotFound), "the payment"); e.Status != 404 || e.Code != "RESOURCE_UNKNOWN" || logged.Len() != 0 {
		t.Errorf("not found: %d %s, logged %q", e.Status, e.Code, logged.String())
	}
	e := StoreError(log, errors.New("connection refused"), "the payment")
	if e.Status != 503 || e.Code != "SERVICE_UNAVAILABLE" || !strings.Contains(logged.String(), `"resource":"the payment"`) || !strings.Contains(logged.String(), "connection refused") {
		t.Errorf("failure: %d %s, logged %q", e.Status, e.Code, logged.String())
	}
}

// TestBody: a body of MaxBody bytes is read whole; one byte more is a
// FORMAT_ERROR.
func TestBody(t *testing.T) {
	full := strings.Repeat("x", MaxBody)
	if b, e := Body(httptest.NewRequest("POST", "/", strings.NewReader(full))); e != nil || len(b) != MaxBody {
		t.Fatalf("%d bytes, %v", len(b), e)
	}
	if _, e := Body(httptest.NewRequest("POST", "/", strings.NewReader(full+"x"))); e == nil || e.Code != "FORMAT_ERROR" {
		t.Fatalf("over the bound: %v", e)
	}
}

// TestFieldErrors: every problem a parser found is a tppMessage of its
// own, the first the error's, each naming its path.
func TestFieldErrors(t *testing.T) {
	e := FieldErrors([]strictjson.FieldError{{Path: "$.a", Rule: "is required"}, {Path: "$.b", Rule: "must be a string"}})
	if e.Code != "FORMAT_ERROR" || e.Path != "$.a" || len(e.More) != 1 || e.More[0].Path != "$.b" {
		t.Fatalf("%+v", e)
	}
	rec := httptest.NewRecorder()
	e.Write(rec)
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), `"path":"$.b"`) {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
}

// TestJSON: a JSON answer carries its length and is not cached.
func TestJSON(t *testing.T) {
	rec := httptest.NewRecorder()
	JSON(rec, 201, map[string]string{"a": "b"})
	h := rec.Header()
	if rec.Code != 201 || rec.Body.String() != `{"a":"b"}` || h.Get("Content-Type") != "application/json" || h.Get("Content-Length") != "9" || h.Get("Cache-Control") != "no-store" {
		t.Fatalf("%d %s %v", rec.Code, rec.Body, h)
	}
}
