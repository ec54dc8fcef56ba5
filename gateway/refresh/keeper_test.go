package refresh

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// memoryStore is the Store of one test's instances: the contract the
// database's (caddymodule's trustStore, tested there on PostgreSQL and
// SQLite) keeps.
type memoryStore struct {
	mu     sync.Mutex
	docs   map[string]*Document
	leases map[string]string
	until  map[string]time.Time
}

func newMemoryStore() *memoryStore {
	return &memoryStore{docs: map[string]*Document{}, leases: map[string]string{}, until: map[string]time.Time{}}
}

func (m *memoryStore) Document(_ context.Context, name string) (*Document, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if d := m.docs[name]; d != nil {
		c := *d
		return &c, nil
	}
	return nil, nil
}

func (m *memoryStore) PutDocument(_ context.Context, name string, d *Document) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if old := m.docs[name]; old == nil || !old.Fetched.After(d.Fetched) {
		c := *d
		m.docs[name] = &c
	}
	return nil
}

func (m *memoryStore) Lease(_ context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if h, ok := m.leases[name]; ok && h != holder && now.Before(m.until[name]) {
		return false, nil
	}
	m.leases[name], m.until[name] = holder, now.Add(ttl)
	return true, nil
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// source is a trust source over HTTP: its body, ETag, whether it fails,
// and what was asked of it.
type source struct {
	mu       sync.Mutex
	body     string
	etag     string
	status   int
	gets     int
	inm      []string // If-None-Match of each request
	redirect string   // /meta answers this pointer
}

func (s *source) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gets++
	s.inm = append(s.inm, r.Header.Get("If-None-Match"))
	switch {
	case s.status != 0:
		w.WriteHeader(s.status)
	case r.URL.Path == "/meta":
		io.WriteString(w, "see "+s.redirect)
	case r.Header.Get("If-None-Match") == s.etag:
		w.WriteHeader(http.StatusNotModified)
	default:
		w.Header().Set("ETag", s.etag)
		io.WriteString(w, s.body)
	}
}

func (s *source) set(f func(s *source)) { s.mu.Lock(); f(s); s.mu.Unlock() }
func (s *source) count() int            { s.mu.Lock(); defer s.mu.Unlock(); return s.gets }

// keeper is a Keeper of srv's document that accepts bodies starting with
// "ok" (a pointer "see <url>" is followed), and records what it used.
func keeper(url string, st Store, holder string, clk *clock) (*Keeper, *[]string) {
	var used []string
	var mu sync.Mutex
	k := &Keeper{Name: "test source", URL: url, Every: 24 * time.Hour, Store: st, Holder: holder, Now: clk.now,
		Accept: func(r io.Reader) ([]byte, error) {
			b, err := io.ReadAll(r)
			if err != nil {
				return nil, err
			}
			if to, ok := strings.CutPrefix(string(b), "see "); ok {
				return nil, &Follow{URL: to}
			}
			if !strings.HasPrefix(string(b), "ok") {
				return nil, errors.New("not a good document")
			}
			return append([]byte("accepted "), b...), nil
		},
		Use: func(b []byte, _ time.Time) error {
			mu.Lock()
			used = append(used, string(b))
			mu.Unlock()
			return nil
		},
	}
	return k, &used
}

// TestKeeper: the first round fetches; before Every nothing is fetched;
// then a conditional GET answered 304 keeps the result and counts as
// fetched; a failing source or a refused body leaves the last good result
// in use and is retried after Retry, not at once; a new body is used.
func TestKeeper(t *testing.T) {
	src := &source{body: "ok v1", etag: `"v1"`}
	srv := httptest.NewServer(src)
	defer srv.Close()
	clk := &clock{t: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)}
	k, used := keeper(srv.URL, nil, "a", clk)
	ctx := context.Background()
	failed := 0
	k.Failed = func() { failed++ }

	if !k.Step(ctx) || len(*used) != 1 || (*used)[0] != "accepted ok v1" || !k.Fetched().Equal(clk.now()) {
		t.Fatalf("first round: used %q, fetched %v", *used, k.Fetched())
	}
	clk.add(23 * time.Hour)
	k.Step(ctx)
	if src.count() != 1 {
		t.Fatalf("%d fetches before Every passed", src.count())
	}
	clk.add(2 * time.Hour)
	k.Step(ctx)
	if src.count() != 2 || src.inm[1] != `"v1"` || !k.Fetched().Equal(clk.now()) {
		t.Fatalf("the conditional GET: %d fetches, If-None-Match %q, fetched %v", src.count(), src.inm, k.Fetched())
	}

	src.set(func(s *source) { s.status = http.StatusServiceUnavailable })
	clk.add(25 * time.Hour)
	fetched := k.Fetched()
	if !k.Step(ctx) || failed != 1 || !k.Fetched().Equal(fetched) {
		t.Fatalf("a failing source: in use %v, %d failures, fetched %v", k.Fetched(), failed, k.Fetched())
	}
	clk.add(time.Minute)
	k.Step(ctx)
	if src.count() != 3 {
		t.Fatalf("%d fetches: a failed fetch was retried before Retry", src.count())
	}
	src.set(func(s *source) { s.status, s.body, s.etag = 0, "broken", `"v2"` })
	clk.add(Retry)
	k.Step(ctx)
	if failed != 2 || (*used)[len(*used)-1] == "accepted broken" {
		t.Fatalf("a refused body: %d failures, used %q", failed, *used)
	}
	src.set(func(s *source) { s.body, s.etag = "ok v3", `"v3"` })
	clk.add(Retry)
	k.Step(ctx)
	if (*used)[len(*used)-1] != "accepted ok v3" || !k.Fetched().Equal(clk.now()) {
		t.Fatalf("a new body: used %q", *used)
	}
}

// TestKeeperShared: instances sharing a store fetch once between them:
// the first fetches under the lease and stores the result; the second,
// started later and even without the network, uses the stored result
// without fetching; a result another stored later replaces the one in use.
func TestKeeperShared(t *testing.T) {
	src := &source{body: "ok v1", etag: `"v1"`}
	srv := httptest.NewServer(src)
	defer srv.Close()
	clk := &clock{t: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)}
	st := newMemoryStore()
	ctx := context.Background()
	a, _ := keeper(srv.URL, st, "a", clk)
	if !a.Step(ctx) {
		t.Fatal("the first instance has no result")
	}
	b, usedB := keeper("http://127.0.0.1:1/unreachable", st, "b", clk)
	if !b.Step(ctx) || len(*usedB) != 1 || (*usedB)[0] != "accepted ok v1" {
		t.Fatalf("the second instance: used %q", *usedB)
	}
	if src.count() != 1 {
		t.Fatalf("%d fetches by two instances, want 1", src.count())
	}
	// A day on, both are due; the one that gets the lease fetches.
	src.set(func(s *source) { s.body, s.etag = "ok v2", `"v2"` })
	clk.add(25 * time.Hour)
	a.Step(ctx)
	b.Step(ctx)
	if src.count() != 2 || (*usedB)[len(*usedB)-1] != "accepted ok v2" {
		t.Fatalf("a day on: %d fetches, the second instance uses %q", src.count(), *usedB)
	}
}

// TestKeeperFollowsAndFiles: a body that points at the source is followed
// once; a file is read again only when it changed.
func TestKeeperFollowsAndFiles(t *testing.T) {
	src := &source{body: "ok data", etag: `"d"`}
	srv := httptest.NewServer(src)
	defer srv.Close()
	src.redirect = srv.URL + "/data"
	clk := &clock{t: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)}
	k, used := keeper(srv.URL+"/meta", nil, "a", clk)
	if !k.Step(context.Background()) || (*used)[0] != "accepted ok data" || src.count() != 2 {
		t.Fatalf("followed: used %q after %d requests", *used, src.count())
	}

	path := filepath.Join(t.TempDir(), "list.xml")
	os.WriteFile(path, []byte("ok file"), 0o600)
	var reads atomic.Int32
	f, fused := keeper(path, nil, "a", clk)
	accept := f.Accept
	f.Accept = func(r io.Reader) ([]byte, error) { reads.Add(1); return accept(r) }
	f.Step(context.Background())
	clk.add(25 * time.Hour)
	f.Step(context.Background())
	if reads.Load() != 1 || len(*fused) != 1 || (*fused)[0] != "accepted ok file" || !f.Fetched().Equal(clk.now()) {
		t.Fatalf("an unchanged file: read %d times, used %q, fetched %v", reads.Load(), *fused, f.Fetched())
	}
	os.WriteFile(path, []byte("ok file 2"), 0o600)
	os.Chtimes(path, clk.now(), clk.now())
	clk.add(25 * time.Hour)
	f.Step(context.Background())
	if reads.Load() != 2 || (*fused)[len(*fused)-1] != "accepted ok file 2" {
		t.Fatalf("a changed file: read %d times, used %q", reads.Load(), *fused)
	}
}

// TestKeeperUnconditional: an unconditional source is fetched whole each
// time, its validators not sent, and used again.
func TestKeeperUnconditional(t *testing.T) {
	src := &source{body: "ok v1", etag: `"v1"`}
	srv := httptest.NewServer(src)
	defer srv.Close()
	clk := &clock{t: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)}
	k, used := keeper(srv.URL, nil, "a", clk)
	k.Unconditional = true
	k.Step(context.Background())
	clk.add(25 * time.Hour)
	k.Step(context.Background())
	if src.count() != 2 || src.inm[1] != "" || len(*used) != 2 {
		t.Fatalf("%d fetches, If-None-Match %q, used %q", src.count(), src.inm, *used)
	}
}

// TestKeeperRenewed: a source whose publisher announces its renewal
// before Every is fetched a minute after it, not a day later.
func TestKeeperRenewed(t *testing.T) {
	src := &source{body: "ok v1", etag: `"v1"`}
	srv := httptest.NewServer(src)
	defer srv.Close()
	clk := &clock{t: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)}
	k, _ := keeper(srv.URL, nil, "a", clk)
	renewed := clk.now().Add(2 * time.Hour)
	k.Renewed = func() time.Time { return renewed }
	k.Step(context.Background())
	clk.add(2 * time.Hour)
	k.Step(context.Background())
	if src.count() != 1 {
		t.Fatalf("%d fetches at the renewal itself, want 1", src.count())
	}
	clk.add(time.Minute)
	k.Step(context.Background())
	if src.count() != 2 {
		t.Fatalf("%d fetches a minute after the renewal, want 2", src.count())
	}
	// A renewal already past (the publisher late) waits for Every.
	clk.add(time.Hour)
	k.Step(context.Background())
	if src.count() != 2 {
		t.Fatalf("%d fetches after a past renewal, want 2", src.count())
	}
}
