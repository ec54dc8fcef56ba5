package caddymodule

import (
	"context"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestRedisLog: go-redis's complaints come out as obgw's structured warn
// lines naming the dependency, one per redisLogEvery, the next one
// counting those in between.
func TestRedisLog(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	l := &redisLog{now: func() time.Time { return now }, logger: func() *zap.Logger { return zap.New(core) }}
	ctx := context.Background()
	l.Printf(ctx, "redis: %s:%d: pool: dial tcp: connection refused", "pool.go", 770)
	for range 5 {
		now = now.Add(time.Second)
		l.Printf(ctx, "redis: connection refused")
	}
	now = now.Add(redisLogEvery)
	l.Printf(ctx, "redis: connection refused")
	entries := logs.All()
	if len(entries) != 2 {
		t.Fatalf("%d lines, want 2", len(entries))
	}
	for _, e := range entries {
		if e.Level != zap.WarnLevel || e.ContextMap()["dependency"] != "redis" {
			t.Fatalf("line %+v", e)
		}
	}
	if got := entries[1].ContextMap()["suppressed_since_last"]; got != int64(5) {
		t.Fatalf("suppressed %v, want 5", got)
	}
}
