package replay

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// testRedis returns a fresh client to the test Redis (CI starts one on
// 127.0.0.1:6379; OBGW_TEST_REDIS_URL overrides). Unreachable fails the
// test; only OBGW_SKIP_REDIS=1 turns the Redis tests off.
func testRedis(t testing.TB) *redis.Client {
	t.Helper()
	if os.Getenv("OBGW_SKIP_REDIS") == "1" {
		t.Skip("OBGW_SKIP_REDIS=1")
	}
	u := os.Getenv("OBGW_TEST_REDIS_URL")
	if u == "" {
		u = "redis://127.0.0.1:6379/0"
	}
	opts, err := redis.ParseURL(u)
	if err != nil {
		t.Fatalf("OBGW_TEST_REDIS_URL: %v", err)
	}
	opts.DialTimeout = time.Second
	c := redis.NewClient(opts)
	t.Cleanup(func() { c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("Redis at %s unreachable (%v): start redis-server, or set OBGW_SKIP_REDIS=1 to skip the Redis tests", opts.Addr, err)
	}
	return c
}

// testPrefix returns a random key prefix whose keys are deleted after the test.
func testPrefix(t testing.TB, c *redis.Client) string {
	var b [8]byte
	rand.Read(b[:])
	prefix := "obgw-test:replay:" + hex.EncodeToString(b[:]) + ":"
	t.Cleanup(func() {
		ctx := context.Background()
		iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
	})
	return prefix
}

func TestRedisClaim(t *testing.T) {
	c := testRedis(t)
	prefix := testPrefix(t, c)
	s := NewRedis(c, prefix)
	ctx := context.Background()
	k := Key("PSDNO-FSA-1", "99391c7e-ad88-49ec-a2ad-99ddcb1f7721", "Sun, 22 Nov 2026 10:00:00 GMT")
	steps := []struct {
		key  string
		want bool
	}{
		{k, true},
		{k, false},
		{k, false},
		{Key("PSDNO-FSA-2", "99391c7e-ad88-49ec-a2ad-99ddcb1f7721", "Sun, 22 Nov 2026 10:00:00 GMT"), true}, // other TPP, same id
	}
	for i, st := range steps {
		got, err := s.Claim(ctx, st.key, 2*time.Minute)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got != st.want {
			t.Fatalf("step %d: Claim = %v, want %v", i, got, st.want)
		}
	}
	ttl := c.PTTL(ctx, prefix+k).Val()
	if ttl <= 110*time.Second || ttl > 2*time.Minute {
		t.Fatalf("key TTL %v, want just under 2m", ttl)
	}
}

func TestRedisClaimExpires(t *testing.T) {
	c := testRedis(t)
	s := NewRedis(c, testPrefix(t, c))
	ctx := context.Background()
	if ok, err := s.Claim(ctx, "k", 80*time.Millisecond); !ok || err != nil {
		t.Fatalf("first claim: %v, %v", ok, err)
	}
	if ok, _ := s.Claim(ctx, "k", 80*time.Millisecond); ok {
		t.Fatal("replay within the TTL accepted")
	}
	time.Sleep(200 * time.Millisecond)
	if ok, err := s.Claim(ctx, "k", 80*time.Millisecond); !ok || err != nil {
		t.Fatalf("claim after the TTL: %v, %v; want true", ok, err)
	}
}

func TestRedisClaimSharedByTwoGateways(t *testing.T) {
	c1, c2 := testRedis(t), testRedis(t)
	prefix := testPrefix(t, c1)
	gateways := []*Redis{NewRedis(c1, prefix), NewRedis(c2, prefix)}
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := gateways[i%2].Claim(context.Background(), "same-request", time.Minute)
			if err != nil {
				t.Error(err)
			}
			if ok {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d winners across two gateways, want 1", wins.Load())
	}
}

func TestRedisClaimErrors(t *testing.T) {
	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DialTimeout: 200 * time.Millisecond, MaxRetries: -1, DialerRetries: 1})
	defer down.Close()
	cases := []struct {
		name  string
		store *Redis
		ttl   time.Duration
	}{
		{"redis down", NewRedis(down, "p:"), time.Minute},
		{"nil client", NewRedis(nil, "p:"), time.Minute},
		{"zero ttl", NewRedis(down, "p:"), 0},
		{"negative ttl", NewRedis(down, "p:"), -time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			ok, err := tc.store.Claim(context.Background(), "k", tc.ttl)
			if err == nil || ok {
				t.Fatalf("Claim = %v, %v; want false and an error", ok, err)
			}
			if el := time.Since(start); el > 3*time.Second {
				t.Errorf("took %v to fail", el)
			}
		})
	}
}

// BenchmarkRedisClaim times individual claims of new keys against the test
// Redis and reports their median and 99th percentile.
func BenchmarkRedisClaim(b *testing.B) {
	c := testRedis(b)
	s := NewRedis(c, testPrefix(b, c))
	ctx := context.Background()
	lat := make([]time.Duration, 0, 1<<16)
	id := make([]byte, 0, 32)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		id = strconv.AppendInt(id[:0], int64(i), 10)
		start := time.Now()
		ok, err := s.Claim(ctx, Key("PSDNO-FSA-1", string(id), "Sun, 22 Nov 2026 10:00:00 GMT"), 100*time.Millisecond)
		lat = append(lat, time.Since(start))
		if err != nil || !ok {
			b.Fatalf("claim %d: %v, %v", i, ok, err)
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2])/1e3, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100])/1e3, "p99-µs")
}
