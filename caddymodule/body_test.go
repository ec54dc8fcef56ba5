package caddymodule

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestBodyMemoryFollowsBytes: what a body read holds follows the bytes that
// arrived, not the Content-Length announced.
func TestBodyMemoryFollowsBytes(t *testing.T) {
	budget := newBodyBudget(1<<30, 1<<30)
	r := httptest.NewRequest(http.MethodPost, "/v1/payments/x", strings.NewReader(`{"a":1}`))
	r.ContentLength = 1 << 20 // announced, never sent
	b := bodyRead{budget: budget}
	got, e := b.read(httptest.NewRecorder(), r, "PSDNO-FSA-1", DefaultMaxBody, time.Second)
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
	if !budget.total.TryAcquire(1<<30) || len(budget.held) != 0 {
		t.Fatalf("release did not give the bytes back: %v", budget.held)
	}
}

// TestBodyBudgetAndLimit: a body beyond the shared budget is refused with
// 503 (the budget is not overdrawn), and one beyond max_body with 413.
func TestBodyBudgetAndLimit(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 200<<10)
	budget := newBodyBudget(64<<10, 1<<30)
	b := bodyRead{budget: budget}
	r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(big))
	if _, e := b.read(httptest.NewRecorder(), r, "PSDNO-FSA-1", DefaultMaxBody, time.Second); e == nil || e.Status != http.StatusServiceUnavailable {
		t.Fatalf("a body beyond the budget: %+v", e)
	}
	if b.held > 64<<10 {
		t.Fatalf("held %d bytes of a 64 KiB budget", b.held)
	}
	b.release()
	b = bodyRead{budget: newBodyBudget(1<<30, 1<<30)}
	r = httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(big))
	r.ContentLength = -1
	if _, e := b.read(httptest.NewRecorder(), r, "PSDNO-FSA-1", 100<<10, time.Second); e == nil || e.Status != http.StatusRequestEntityTooLarge {
		t.Fatalf("a chunked body beyond max_body: %+v", e)
	}
	if b.held > 100<<10+1 {
		t.Fatalf("held %d bytes for a 100 KiB limit", b.held)
	}
}

// TestBodyShares: the bodies of one TPP hold at most its share; another
// TPP's body is read while the first holds it, and the share comes back
// as the first TPP's requests are answered.
func TestBodyShares(t *testing.T) {
	budget := newBodyBudget(1<<20, 256<<10)
	var hogs []*bodyRead
	refused := 0
	for range 8 {
		// Bodies of 64 KiB + 1 that are still arriving: each holds its
		// bytes, as a trickled one does.
		b := &bodyRead{budget: budget}
		r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(bytes.Repeat([]byte("x"), 64<<10)))
		_, e := b.read(httptest.NewRecorder(), r, "PSDNO-FSA-HOG", DefaultMaxBody, time.Second)
		switch {
		case e == nil:
			hogs = append(hogs, b)
		case e.Status == http.StatusServiceUnavailable && strings.Contains(e.Text, "your share") && e.RetryAfter == 1:
			refused++
		default:
			t.Fatalf("%+v", e)
		}
	}
	if refused == 0 || budget.held["PSDNO-FSA-HOG"] > 256<<10 {
		t.Fatalf("one TPP holds %d bytes of a 256 KiB share (%d refused)", budget.held["PSDNO-FSA-HOG"], refused)
	}
	other := &bodyRead{budget: budget}
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"a":1}`))
	if got, e := other.read(httptest.NewRecorder(), r, "PSDNO-FSA-OTHER", DefaultMaxBody, time.Second); e != nil || string(got) != `{"a":1}` {
		t.Fatalf("another TPP's body while the first holds its share: %q %+v", got, e)
	}
	other.release()
	for _, b := range hogs {
		b.release()
	}
	if len(budget.held) != 0 || !budget.total.TryAcquire(1<<20) {
		t.Fatalf("the shares did not come back: %v", budget.held)
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
			b := bodyRead{budget: newBodyBudget(1<<30, 1<<30)}
			got, e := b.read(httptest.NewRecorder(), r, "PSDNO-FSA-1", DefaultMaxBody, time.Second)
			if e != nil || !bytes.Equal(got, body) {
				t.Fatalf("%d bytes (Content-Length %d): got %d bytes, %v", n, cl, len(got), e)
			}
			b.release()
		}
	}
}
