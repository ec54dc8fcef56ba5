package limits

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// testRedisURL is the Redis the tests use; CI starts one on 127.0.0.1:6379.
func testRedisURL() string {
	if u := os.Getenv("OBGW_TEST_REDIS_URL"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/0"
}

// requireRedis returns a fresh client to the test Redis. An unreachable
// Redis fails the test: only OBGW_SKIP_REDIS=1 turns the Redis tests off.
func requireRedis(tb testing.TB) redis.UniversalClient {
	tb.Helper()
	if os.Getenv("OBGW_SKIP_REDIS") == "1" {
		tb.Skip("OBGW_SKIP_REDIS=1")
	}
	c, err := NewRedisClient(testRedisURL())
	if err != nil {
		tb.Fatalf("test Redis URL: %v", err)
	}
	tb.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		tb.Fatalf("Redis at %s unreachable (%v): start redis-server, or set OBGW_SKIP_REDIS=1 to skip the Redis tests", testRedisURL(), err)
	}
	return c
}

// testPrefix returns a random key prefix and deletes its keys when the
// test ends, so parallel and repeated runs never see each other's keys.
func testPrefix(tb testing.TB, c redis.UniversalClient) string {
	tb.Helper()
	var b [8]byte
	rand.Read(b[:])
	prefix := "obgw-test:limits:" + hex.EncodeToString(b[:]) + ":"
	tb.Cleanup(func() {
		ctx := context.Background()
		iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
		if err := iter.Err(); err != nil {
			tb.Errorf("cleaning up %s*: %v", prefix, err)
		}
	})
	return prefix
}
