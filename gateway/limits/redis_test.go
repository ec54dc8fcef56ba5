package limits

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestRedisTwoClientsShareOneLimit(t *testing.T) {
	c1 := requireRedis(t)
	c2 := requireRedis(t) // a second connection pool, as a second gateway has
	prefix := testPrefix(t, c1)
	gateways := []*Redis{NewRedis(c1, Config{}, prefix), NewRedis(c2, Config{}, prefix)}
	var allowedN atomic.Int32
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := gateways[i%2].Allow(context.Background(), "shared", t0.Add(time.Duration(i)*time.Millisecond))
			if err != nil {
				t.Error(err)
			}
			if d.Allowed {
				allowedN.Add(1)
			}
		}()
	}
	wg.Wait()
	if allowedN.Load() != DefaultLimit {
		t.Fatalf("two gateways allowed %d calls in total, want exactly %d", allowedN.Load(), DefaultLimit)
	}
}

func TestRedisKeyExpiresWithWindow(t *testing.T) {
	c := requireRedis(t)
	prefix := testPrefix(t, c)
	l := NewRedis(c, Config{Limit: 2, Window: time.Minute}, prefix)
	if _, err := l.Allow(context.Background(), "k", time.Now()); err != nil {
		t.Fatal(err)
	}
	ttl, err := c.PTTL(context.Background(), prefix+"k").Result()
	if err != nil {
		t.Fatal(err)
	}
	if ttl <= 55*time.Second || ttl > time.Minute {
		t.Fatalf("key TTL %v, want just under the 1m window so idle keys leave Redis", ttl)
	}
	if n := c.ZCard(context.Background(), prefix+"k").Val(); n != 1 {
		t.Fatalf("sorted set holds %d calls, want 1", n)
	}
}

func TestRedisRefusedCallsAreNotStored(t *testing.T) {
	c := requireRedis(t)
	prefix := testPrefix(t, c)
	l := NewRedis(c, Config{}, prefix)
	for i := range 20 {
		l.Allow(context.Background(), "k", t0.Add(time.Duration(i)*time.Second))
	}
	if n := c.ZCard(context.Background(), prefix+"k").Val(); n != DefaultLimit {
		t.Fatalf("sorted set holds %d calls after 20 attempts, want %d", n, DefaultLimit)
	}
}

func TestRedisUnreachableFailsPromptly(t *testing.T) {
	down := redis.NewClient(&redis.Options{
		Addr:          "127.0.0.1:1",
		DialTimeout:   200 * time.Millisecond,
		ReadTimeout:   200 * time.Millisecond,
		MaxRetries:    -1,
		DialerRetries: 1,
	})
	defer down.Close()
	fromURL, err := NewRedisClient("redis://127.0.0.1:1/0")
	if err != nil {
		t.Fatal(err)
	}
	defer fromURL.Close()
	for name, c := range map[string]redis.UniversalClient{"options": down, "NewRedisClient defaults": fromURL} {
		t.Run(name, func(t *testing.T) {
			l := NewRedis(c, Config{}, "obgw-test:")
			start := time.Now()
			d, err := l.Allow(context.Background(), "k", t0)
			if err == nil {
				t.Fatal("no error from a Redis that is down")
			}
			if d.Allowed {
				t.Errorf("Decision %+v with an error, want the zero Decision", d)
			}
			if el := time.Since(start); el > 3*time.Second {
				t.Errorf("took %v to fail, want well under the 3 s budget", el)
			}
		})
	}
}

func TestRedisNilClientIsAnError(t *testing.T) {
	d, err := NewRedis(nil, Config{}, "p:").Allow(context.Background(), "k", t0)
	if !errors.Is(err, errNoClient) || d.Allowed {
		t.Fatalf("nil client: %+v, %v; want errNoClient and not allowed", d, err)
	}
}

func TestRedisContextCancelled(t *testing.T) {
	c := requireRedis(t)
	l := NewRedis(c, Config{}, testPrefix(t, c))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Allow(ctx, "k", t0); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: err = %v, want context.Canceled", err)
	}
}

// BenchmarkRedisAllow times individual Allow calls against the test Redis
// and reports their median and 99th percentile.
func BenchmarkRedisAllow(b *testing.B) {
	c := requireRedis(b)
	prefix := testPrefix(b, c)
	ctx := context.Background()
	for _, mode := range []string{"allowed", "refused"} {
		b.Run(mode, func(b *testing.B) {
			l := NewRedis(c, Config{}, prefix)
			key := Key("PSDNO-FSA-123456789", "6f2d7c3e-1d6b-4d8e-9a57-2f3a5c6b7d8e", mode, KindTransactions)
			now := t0
			if mode == "refused" {
				for range DefaultLimit {
					l.Allow(ctx, key, now)
				}
			}
			lat := make([]time.Duration, 0, 1<<16)
			b.ReportAllocs()
			for b.Loop() {
				if mode == "allowed" {
					now = now.Add(DefaultWindow / DefaultLimit)
				}
				start := time.Now()
				d, err := l.Allow(ctx, key, now)
				lat = append(lat, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
				if d.Allowed != (mode == "allowed") {
					b.Fatalf("%s benchmark got %+v", mode, d)
				}
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2])/1e3, "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100])/1e3, "p99-µs")
		})
	}
}
