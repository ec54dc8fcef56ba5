package limits

import (
	"context"
	"fmt"
	"testing"
	"time"
)

func TestMemorySweepsIdleKeys(t *testing.T) {
	m := NewMemory(Config{Limit: 4, Window: time.Hour})
	ctx := context.Background()
	for i := range 10_000 {
		m.Allow(ctx, fmt.Sprint("old-", i), t0)
	}
	if n := m.Len(); n != 10_000 {
		t.Fatalf("Len = %d after 10000 new keys, want 10000", n)
	}
	// One window and one sweep interval later every old key is idle; the
	// next calls on each shard sweep them.
	later := t0.Add(time.Hour + time.Hour/8)
	for i := range 1000 {
		m.Allow(ctx, fmt.Sprint("new-", i), later)
	}
	if n := m.Len(); n != 1000 {
		t.Fatalf("Len = %d, want 1000: idle keys were not swept", n)
	}
}

func TestMemoryKeepsKeysStillInWindow(t *testing.T) {
	m := NewMemory(Config{Limit: 2, Window: time.Hour})
	ctx := context.Background()
	m.Allow(ctx, "k", t0)
	m.Allow(ctx, "k", t0.Add(50*time.Minute))
	// Sweeps on every shard: the key's newest call is still in the window,
	// so it must survive and keep refusing.
	for i := range 1000 {
		m.Allow(ctx, fmt.Sprint("other-", i), t0.Add(65*time.Minute))
	}
	// t0 has left; a correct sweep kept the t0+50m call, so this is the
	// second call in the window and the next one is refused.
	if d, _ := m.Allow(ctx, "k", t0.Add(65*time.Minute)); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("call at t0+65m: %+v, want allowed with 0 remaining", d)
	}
	d, _ := m.Allow(ctx, "k", t0.Add(66*time.Minute))
	if d.Allowed {
		t.Fatal("a key with a call still in the window was swept: its limit reset")
	}
	if d.RetryAfter != 44*time.Minute {
		t.Fatalf("RetryAfter = %v, want 44m (the t0+50m call leaves at t0+110m)", d.RetryAfter)
	}
}

func TestMemoryAllowDoesNotAllocateForKnownKey(t *testing.T) {
	m := NewMemory(Config{})
	ctx := context.Background()
	key := Key("PSDNO-FSA-123456789", "6f2d7c3e-1d6b-4d8e-9a57-2f3a5c6b7d8e", "acc-1", KindBalances)
	now := t0
	m.Allow(ctx, key, now)
	allocs := testing.AllocsPerRun(1000, func() {
		now = now.Add(7 * time.Hour) // a mix of allowed and refused calls
		m.Allow(ctx, key, now)
	})
	if allocs != 0 {
		t.Fatalf("Allow on a known key allocates %.1f times per call, want 0", allocs)
	}
}

// BenchmarkMemoryAllow measures Allow on a known key: refused (the key is
// at its limit) and allowed (each call expires the oldest).
func BenchmarkMemoryAllow(b *testing.B) {
	ctx := context.Background()
	key := Key("PSDNO-FSA-123456789", "6f2d7c3e-1d6b-4d8e-9a57-2f3a5c6b7d8e", "3d9a4b7e-2c1f-4a5b-8e6d-7f8a9b0c1d2e", KindTransactions)
	b.Run("refused", func(b *testing.B) {
		m := NewMemory(Config{})
		for range DefaultLimit {
			m.Allow(ctx, key, t0)
		}
		b.ReportAllocs()
		for b.Loop() {
			if d, _ := m.Allow(ctx, key, t0); d.Allowed {
				b.Fatal("allowed")
			}
		}
	})
	b.Run("allowed", func(b *testing.B) {
		m := NewMemory(Config{})
		now := t0
		b.ReportAllocs()
		for b.Loop() {
			now = now.Add(DefaultWindow / DefaultLimit)
			if d, _ := m.Allow(ctx, key, now); !d.Allowed {
				b.Fatal("refused")
			}
		}
	})
	b.Run("parallel-4096-keys", func(b *testing.B) {
		m := NewMemory(Config{})
		keys := make([]string, 4096)
		for i := range keys {
			keys[i] = Key("PSDNO-FSA-123456789", fmt.Sprintf("%08d-1d6b-4d8e-9a57-2f3a5c6b7d8e", i), "acc", KindBalances)
			m.Allow(ctx, keys[i], t0)
		}
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				m.Allow(ctx, keys[i%len(keys)], t0)
				i++
			}
		})
	})
}
