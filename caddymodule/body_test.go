package caddymodule

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/semaphore"
)

// TestBodyMemoryFollowsBytes: what a body read holds follows the bytes that
// arrived, not the Content-Length announced.
func TestBodyMemoryFollowsBytes(t *testing.T) {
	budget := semaphore.NewWeighted(1 << 30)
	r := httptest.NewRequest(http.MethodPost, "/v1/payments/x", strings.NewReader(`{"a":1}`))
	r.ContentLength = 1 << 20 // announced, never sent
	b := bodyRead{budget: budget}
	got, e := b.read(httptest.NewRecorder(), r, DefaultMaxBody, time.Second)
	if e != nil {
		t.Fatal(e)
	}
	if string(got) != `{"a":1}` || b.held > firstChunk {
		t.Fatalf("read %q holding %d bytes", got, b.held)
	}
	again, _ := io.ReadAll(r.Body)
	if !bytes.Equal(again, got) || r.ContentLength != int64(len(got)) {
		t.Fatalf("the next handler reads %q (Content-Length %d)", again, r.ContentLength)
	}
	b.release()
	if !budget.TryAcquire(1 << 30) {
		t.Fatal("release did not give the bytes back")
	}
}

// TestBodyBudgetAndLimit: a body beyond the shared budget is refused with
// 503 (the budget is not overdrawn), and one beyond max_body with 413.
func TestBodyBudgetAndLimit(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 200<<10)
	budget := semaphore.NewWeighted(64 << 10)
	b := bodyRead{budget: budget}
	r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(big))
	if _, e := b.read(httptest.NewRecorder(), r, DefaultMaxBody, time.Second); e == nil || e.Status != http.StatusServiceUnavailable {
		t.Fatalf("a body beyond the budget: %+v", e)
	}
	if b.held > 64<<10 {
		t.Fatalf("held %d bytes of a 64 KiB budget", b.held)
	}
	b.release()
	b = bodyRead{budget: semaphore.NewWeighted(1 << 30)}
	r = httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(big))
	r.ContentLength = -1
	if _, e := b.read(httptest.NewRecorder(), r, 100<<10, time.Second); e == nil || e.Status != http.StatusRequestEntityTooLarge {
		t.Fatalf("a chunked body beyond max_body: %+v", e)
	}
	if b.held > 100<<10+1 {
		t.Fatalf("held %d bytes for a 100 KiB limit", b.held)
	}
}

// TestBodyExactSizes: bodies at and around the chunk boundaries read back
// exactly.
func TestBodyExactSizes(t *testing.T) {
	for _, n := range []int{1, firstChunk - 1, firstChunk, firstChunk + 1, 3 * maxChunk, DefaultMaxBody} {
		body := bytes.Repeat([]byte("y"), n)
		for _, cl := range []int64{int64(n), -1} {
			r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
			r.ContentLength = cl
			b := bodyRead{budget: semaphore.NewWeighted(1 << 30)}
			got, e := b.read(httptest.NewRecorder(), r, DefaultMaxBody, time.Second)
			if e != nil || !bytes.Equal(got, body) {
				t.Fatalf("%d bytes (Content-Length %d): got %d bytes, %v", n, cl, len(got), e)
			}
			b.release()
		}
	}
}
