package main

import (
	"net/http"
	"sync"
	"testing"
)

// TestOncePoolHandsOutEachRequestOnce: with replay enforced, a request sent
// twice is refused, so concurrent workers must never share one.
func TestOncePoolHandsOutEachRequestOnce(t *testing.T) {
	reqs := make([]*http.Request, 1000)
	for i := range reqs {
		reqs[i], _ = http.NewRequest(http.MethodGet, "https://localhost/", nil)
	}
	p := &oncePool{reqs: reqs}
	var (
		mu   sync.Mutex
		seen = map[*http.Request]int{}
		wg   sync.WaitGroup
	)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				r, ok := p.next()
				if !ok {
					return
				}
				mu.Lock()
				seen[r]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != len(reqs) || !p.exhausted.Load() {
		t.Fatalf("handed out %d distinct of %d, exhausted %v", len(seen), len(reqs), p.exhausted.Load())
	}
	for _, n := range seen {
		if n != 1 {
			t.Fatalf("a request was handed out %d times", n)
		}
	}
}

func TestHeaderFlag(t *testing.T) {
	h := headerFlag{"Tpp-Redirect-Uri": {"https://tpp.example.no/cb"}}
	for _, s := range []string{"PSU-ID: 3f1c", "TPP-Session-ID:s1", "PSU-ID: 9a2b", "TPP-Redirect-URI:"} {
		if err := h.Set(s); err != nil {
			t.Fatalf("Set(%q): %v", s, err)
		}
	}
	got := http.Header(h)
	if got.Get("PSU-ID") != "9a2b" || got.Get("TPP-Session-ID") != "s1" || got.Get("TPP-Redirect-URI") != "" || len(got) != 2 {
		t.Fatalf("headers %v", got)
	}
	for _, bad := range []string{"no colon", ": value", "Two Words: v"} {
		if err := h.Set(bad); err == nil {
			t.Errorf("Set(%q) accepted", bad)
		}
	}
}

// TestBuildPoolSignsDistinctRequests: every request of a pool carries its
// own X-Request-ID and a signature, with the -H headers.
func TestBuildPoolSignsDistinctRequests(t *testing.T) {
	s, err := loadSigner("../../testdata/pki", "tpp")
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := buildPool(loadConfig{target: "https://localhost/v1/accounts", headers: http.Header{"Psu-Id": {"3f1c"}}}, 50, s)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, r := range reqs {
		ids[r.Header.Get("X-Request-ID")] = true
		if r.Header.Get("Signature") == "" || r.Header.Get("PSU-ID") != "3f1c" {
			t.Fatalf("request headers %v", r.Header)
		}
	}
	if len(ids) != len(reqs) {
		t.Fatalf("%d distinct X-Request-IDs in %d requests", len(ids), len(reqs))
	}
}
