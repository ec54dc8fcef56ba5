package registry

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const doc = `{"tpps":[
 {"organizationIdentifier":"PSDNO-FSA-987654321","name":"Test TPP AS","roles":["PSP_AI","PSP_PI"],"status":"authorised"},
 {"organizationIdentifier":"PSDNO-FSA-111111111","name":"Gone AS","roles":["PSP_AI"],"status":"withdrawn"}]}`

func TestParseFile(t *testing.T) {
	f, err := ParseFile([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	e, err := f.Lookup(context.Background(), "PSDNO-FSA-987654321")
	if err != nil || !e.Authorised() || e.Name != "Test TPP AS" {
		t.Fatalf("%+v %v", e, err)
	}
	w, _ := f.Lookup(context.Background(), "PSDNO-FSA-111111111")
	if w.Authorised() {
		t.Fatal("withdrawn entry authorised")
	}
	if _, err := f.Lookup(context.Background(), "PSDNO-FSA-0"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown: %v", err)
	}
	for _, bad := range []string{
		`{"tpps":[{"organizationIdentifier":"","status":"authorised"}]}`,
		`{"tpps":[{"organizationIdentifier":"X","status":"maybe"}]}`,
		`{"tpps":[{"organizationIdentifier":"X","status":"authorised"},{"organizationIdentifier":"X","status":"withdrawn"}]}`,
		`{"tpps":`,
	} {
		if _, err := ParseFile([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

func TestGrantedRolesIsIntersection(t *testing.T) {
	e := &Entry{Roles: []string{"PSP_AI"}}
	got := e.GrantedRoles([]string{"PSP_PI", "PSP_AI"})
	if len(got) != 1 || got[0] != "PSP_AI" {
		t.Fatalf("%v", got)
	}
	if len((&Entry{}).GrantedRoles([]string{"PSP_AI"})) != 0 {
		t.Fatal("empty register roles granted something")
	}
	// Every role granted: the certificate's own slice, without a copy,
	// and an append to it does not write into the certificate's roles.
	cert := make([]string, 2, 4)
	cert[0], cert[1] = "PSP_PI", "PSP_AI"
	all := &Entry{Roles: []string{"PSP_AI", "PSP_PI", "PSP_IC"}}
	if n := testing.AllocsPerRun(100, func() { all.GrantedRoles(cert) }); n != 0 {
		t.Fatalf("%v allocations when every role is granted", n)
	}
	got = all.GrantedRoles(cert)
	if len(got) != 2 || got[0] != "PSP_PI" || got[1] != "PSP_AI" {
		t.Fatalf("%v", got)
	}
	_ = append(got, "X")
	if cert[:3][2] == "X" {
		t.Fatal("an append to the granted roles wrote into the certificate's")
	}
}

// flakySource counts lookups and fails while down is set.
type flakySource struct {
	inner Source
	down  atomic.Bool
	calls atomic.Int32
	delay time.Duration
}

func (s *flakySource) Lookup(ctx context.Context, id string) (*Entry, error) {
	s.calls.Add(1)
	time.Sleep(s.delay)
	if s.down.Load() {
		return nil, errors.New("connection refused")
	}
	return s.inner.Lookup(ctx, id)
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestCacheTTLStaleAndFailClosed(t *testing.T) {
	f, _ := ParseFile([]byte(doc))
	src := &flakySource{inner: f}
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	c, _ := NewCache(src, CacheConfig{TTL: time.Minute, NegativeTTL: 10 * time.Second, MaxStale: 5 * time.Minute, Now: clk.now})
	ctx := context.Background()
	id := "PSDNO-FSA-987654321"

	if _, err := c.Lookup(ctx, id); err != nil {
		t.Fatal(err)
	}
	c.Lookup(ctx, id)
	if n := src.calls.Load(); n != 1 {
		t.Fatalf("fresh entry fetched %d times", n)
	}
	clk.t = clk.t.Add(2 * time.Minute)
	c.Lookup(ctx, id)
	if n := src.calls.Load(); n != 2 {
		t.Fatalf("expired entry not refetched: %d", n)
	}
	// Source down: stale entry served within MaxStale...
	src.down.Store(true)
	clk.t = clk.t.Add(3 * time.Minute)
	if e, err := c.Lookup(ctx, id); err != nil || e == nil {
		t.Fatalf("stale not served: %v", err)
	}
	// ...and refused after it.
	clk.t = clk.t.Add(10 * time.Minute)
	if _, err := c.Lookup(ctx, id); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("past stale bound: %v", err)
	}
	// Never-seen id with the source down fails closed.
	if _, err := c.Lookup(ctx, "PSDNO-FSA-222"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("unknown while down: %v", err)
	}
	// Source back: recovers without anything else.
	src.down.Store(false)
	if _, err := c.Lookup(ctx, id); err != nil {
		t.Fatal(err)
	}
}

func TestCacheNegativeTTL(t *testing.T) {
	f, _ := ParseFile([]byte(doc))
	src := &flakySource{inner: f}
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	c, _ := NewCache(src, CacheConfig{TTL: time.Hour, NegativeTTL: 10 * time.Second, Now: clk.now})
	for i := 0; i < 3; i++ {
		if _, err := c.Lookup(context.Background(), "PSDNO-FSA-0"); !errors.Is(err, ErrNotFound) {
			t.Fatal(err)
		}
	}
	if src.calls.Load() != 1 {
		t.Fatalf("negative result not cached: %d calls", src.calls.Load())
	}
	clk.t = clk.t.Add(11 * time.Second)
	c.Lookup(context.Background(), "PSDNO-FSA-0")
	if src.calls.Load() != 2 {
		t.Fatalf("negative TTL not honoured: %d calls", src.calls.Load())
	}
}

func TestCacheCoalescesConcurrentMisses(t *testing.T) {
	f, _ := ParseFile([]byte(doc))
	src := &flakySource{inner: f, delay: 50 * time.Millisecond}
	c, _ := NewCache(src, CacheConfig{})
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Lookup(context.Background(), "PSDNO-FSA-987654321"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := src.calls.Load(); n != 1 {
		t.Fatalf("%d source lookups for one id", n)
	}
}

func TestHTTPSource(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/tpps/PSDNO-FSA-987654321":
			w.Write([]byte(`{"organizationIdentifier":"PSDNO-FSA-987654321","name":"Test TPP AS","roles":["PSP_AI"],"status":"authorised"}`))
		case "/tpps/PSDNO-FSA-333":
			w.Write([]byte(`{"organizationIdentifier":"PSDNO-FSA-999","status":"authorised"}`))
		case "/tpps/PSDNO-FSA-500":
			w.WriteHeader(500)
		default:
			w.WriteHeader(404)
		}
	}))
	defer srv.Close()
	h := &HTTP{BaseURL: srv.URL + "/tpps"}
	ctx := context.Background()
	if e, err := h.Lookup(ctx, "PSDNO-FSA-987654321"); err != nil || !e.Authorised() {
		t.Fatalf("%+v %v", e, err)
	}
	if _, err := h.Lookup(ctx, "PSDNO-FSA-404"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("404: %v", err)
	}
	if _, err := h.Lookup(ctx, "PSDNO-FSA-500"); err == nil || errors.Is(err, ErrNotFound) {
		t.Fatalf("500 must be an availability error: %v", err)
	}
	if _, err := h.Lookup(ctx, "PSDNO-FSA-333"); err == nil {
		t.Fatal("entry for another id accepted")
	}
}

// ctxSource fails when its context is cancelled, like an HTTP register.
type ctxSource struct{ inner Source }

func (s ctxSource) Lookup(ctx context.Context, id string) (*Entry, error) {
	select {
	case <-time.After(50 * time.Millisecond):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.inner.Lookup(ctx, id)
}

// TestCacheLookupSurvivesFirstCallerLeaving: the first caller of a shared
// miss disconnects; the others still get the entry.
func TestCacheLookupSurvivesFirstCallerLeaving(t *testing.T) {
	f, _ := ParseFile([]byte(doc))
	c, _ := NewCache(ctxSource{f}, CacheConfig{})
	first, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(10 * time.Millisecond); cancel() }()
	done := make(chan error, 1)
	go func() { _, err := c.Lookup(first, "PSDNO-FSA-987654321"); done <- err }()
	time.Sleep(5 * time.Millisecond)
	if _, err := c.Lookup(context.Background(), "PSDNO-FSA-987654321"); err != nil {
		t.Fatalf("second caller: %v", err)
	}
	<-done
}

// panicSource panics on its first lookup, once release is closed; later
// lookups go to inner.
type panicSource struct {
	inner            Source
	started, release chan struct{}
	calls            atomic.Int32
}

func (s *panicSource) Lookup(ctx context.Context, id string) (*Entry, error) {
	if s.calls.Add(1) == 1 {
		close(s.started)
		<-s.release
		panic("boom")
	}
	return s.inner.Lookup(ctx, id)
}

// TestCacheLookupPanicReleasesID: a source lookup that panics while a
// second caller shares it fails both callers (nothing cached to serve) and
// leaves the identifier free: the next caller asks the source again
// instead of waiting for ever.
func TestCacheLookupPanicReleasesID(t *testing.T) {
	f, _ := ParseFile([]byte(doc))
	src := &panicSource{inner: f, started: make(chan struct{}), release: make(chan struct{})}
	c, _ := NewCache(src, CacheConfig{})
	const id = "PSDNO-FSA-987654321"
	lookup := func() <-chan error {
		out := make(chan error, 1)
		go func() { _, err := c.Lookup(context.Background(), id); out <- err }()
		return out
	}
	first := lookup()
	<-src.started
	second := lookup()
	// Both callers wait in fetch: the second shares the first's lookup.
	deadline := time.Now().Add(10 * time.Second)
	for goroutinesIn("registry.(*Cache).fetch(") < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the second caller never waited for the running lookup")
		}
		time.Sleep(time.Millisecond)
	}
	close(src.release)
	for i, ch := range []<-chan error{first, second} {
		select {
		case err := <-ch:
			if !errors.Is(err, ErrUnavailable) {
				t.Errorf("caller %d: %v, want ErrUnavailable", i+1, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("caller %d hangs after the lookup panicked", i+1)
		}
	}
	select {
	case err := <-lookup():
		if err != nil {
			t.Errorf("lookup after the panic: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the lookup after the panic hangs")
	}
	if n := src.calls.Load(); n != 2 {
		t.Errorf("%d source lookups, want 2 (the one that panicked and a fresh one)", n)
	}
}

// goroutinesIn counts the goroutines whose stack includes fn.
func goroutinesIn(fn string) int {
	buf := make([]byte, 1<<20)
	n := 0
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, fn) {
			n++
		}
	}
	return n
}

// TestChain: the first source that knows a TPP decides, withdrawn
// included; a source that cannot be asked fails the lookup rather than
// let the next one decide.
func TestChain(t *testing.T) {
	eba, err := ParseFile([]byte(`{"tpps":[{"organizationIdentifier":"PSDNO-FSA-1","name":"A","roles":["PSP_AI"],"status":"withdrawn"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	file, err := ParseFile([]byte(`{"tpps":[{"organizationIdentifier":"PSDNO-FSA-1","name":"A","roles":["PSP_AI"],"status":"authorised"},` +
		`{"organizationIdentifier":"PSDNO-FSA-2","name":"Bank","roles":["PSP_AS","PSP_AI"],"status":"authorised"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := Chain{eba, file}
	if e, err := c.Lookup(ctx, "PSDNO-FSA-1"); err != nil || e.Status != StatusWithdrawn {
		t.Fatalf("known to the first: %+v %v", e, err)
	}
	if e, err := c.Lookup(ctx, "PSDNO-FSA-2"); err != nil || e.Name != "Bank" {
		t.Fatalf("known to the second only: %+v %v", e, err)
	}
	if _, err := c.Lookup(ctx, "PSDNO-FSA-3"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("known to none: %v", err)
	}
	down := Chain{&EBASource{}, file}
	if _, err := down.Lookup(ctx, "PSDNO-FSA-2"); !errors.Is(err, ErrStale) {
		t.Fatalf("the first cannot be asked: %v", err)
	}
}
