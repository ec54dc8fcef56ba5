package replay

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestMemoryClaim(t *testing.T) {
	m := NewMemory()
	now := time.Unix(1_800_000_000, 0)
	m.Now = func() time.Time { return now }
	ctx := context.Background()
	k := Key("PSDNO-FSA-1", "99391c7e-ad88-49ec-a2ad-99ddcb1f7721", "Sun, 22 Nov 2026 10:00:00 GMT")
	if ok, _ := m.Claim(ctx, k, 2*time.Minute); !ok {
		t.Fatal("first claim refused")
	}
	if ok, _ := m.Claim(ctx, k, 2*time.Minute); ok {
		t.Fatal("replay accepted")
	}
	// Same request id from another TPP is not a replay.
	if ok, _ := m.Claim(ctx, Key("PSDNO-FSA-2", "99391c7e-ad88-49ec-a2ad-99ddcb1f7721", "Sun, 22 Nov 2026 10:00:00 GMT"), 2*time.Minute); !ok {
		t.Fatal("other TPP refused")
	}
	now = now.Add(2*time.Minute + time.Second)
	if ok, _ := m.Claim(ctx, k, 2*time.Minute); !ok {
		t.Fatal("expired key still refused")
	}
}

func TestMemorySweeps(t *testing.T) {
	m := NewMemory()
	now := time.Unix(1_800_000_000, 0)
	m.Now = func() time.Time { return now }
	for i := 0; i < 1000; i++ {
		m.Claim(context.Background(), fmt.Sprint(i), time.Minute)
	}
	now = now.Add(2 * time.Minute)
	for i := 0; i < 1000; i++ {
		m.Claim(context.Background(), fmt.Sprint("new", i), time.Minute)
	}
	if n := m.Len(); n > 1000 {
		t.Fatalf("expired keys not swept: %d held", n)
	}
}

func TestMemoryConcurrentClaimsOneWinner(t *testing.T) {
	m := NewMemory()
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ok, _ := m.Claim(context.Background(), "k", time.Minute); ok {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d winners", wins.Load())
	}
}

func BenchmarkMemoryClaim(b *testing.B) {
	m := NewMemory()
	keys := make([]string, 4096)
	for i := range keys {
		keys[i] = Key("PSDNO-FSA-987654321", fmt.Sprintf("%08d-ad88-49ec-a2ad-99ddcb1f7721", i), "Sun, 22 Nov 2026 10:00:00 GMT")
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		m.Claim(context.Background(), keys[i%len(keys)], time.Minute)
		i++
	}
}

func TestKeyIncludesTheSignedDate(t *testing.T) {
	a := Key("PSDNO-FSA-1", "id", "Sun, 22 Nov 2026 10:00:00 GMT")
	if a == Key("PSDNO-FSA-1", "id", "Sun, 22 Nov 2026 10:00:01 GMT") {
		t.Fatal("a re-signed retry collides with the original")
	}
	if a != Key("PSDNO-FSA-1", "id", "Sun, 22 Nov 2026 10:00:00 GMT") {
		t.Fatal("an exact replay does not collide")
	}
}
