package caddymodule

import (
	"context"

	"github.com/caddyserver/caddy/v2"
	"github.com/redis/go-redis/v9"

	"github.com/obgw/obgw/gateway/limits"
	"github.com/obgw/obgw/gateway/replay"
)

// sharedStates holds the replay and limit state per backing store ("memory"
// or a Redis URL) across config reloads.
var sharedStates = caddy.NewUsagePool()

// sharedState is the replay store and limiter of one backing store.
type sharedState struct {
	replay   replay.Store
	fallback replay.Store // this instance's memory, for on_error replay allow
	limiter  limits.Limiter
	client   redis.UniversalClient
}

// newSharedState builds in-memory state, or Redis-backed state when url is
// set. Building a Redis client makes no connection.
func newSharedState(url string) (*sharedState, error) {
	if url == "" {
		return &sharedState{replay: replay.NewMemory(), limiter: limits.NewMemory(limits.Config{})}, nil
	}
	routeRedisLog()
	client, err := limits.NewRedisClient(url)
	if err != nil {
		return nil, err
	}
	if err := traceRedis(client); err != nil {
		client.Close()
		return nil, err
	}
	client.AddHook(redisTimer{obgwMetrics})
	return &sharedState{
		replay:   replay.NewRedis(client, "obgw:replay:"),
		fallback: replay.NewMemory(),
		limiter:  limits.NewRedis(client, limits.Config{}, "obgw:limit:"),
		client:   client,
	}, nil
}

// ping checks that Redis answers; state in memory always does.
func (s *sharedState) ping(ctx context.Context) error {
	if s.client == nil {
		return nil
	}
	return s.client.Ping(ctx).Err()
}

// Destruct closes the Redis client when no configuration uses it.
func (s *sharedState) Destruct() error {
	if s.client != nil {
		return s.client.Close()
	}
	return nil
}

var _ caddy.Destructor = (*sharedState)(nil)
