package replay

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is a Store shared by every gateway using the same Redis: a claim is
// one SET key 1 NX PX ttl, so exactly one gateway wins a key.
type Redis struct {
	client redis.UniversalClient
	prefix string
}

var _ Store = (*Redis)(nil)

// NewRedis returns a Store keeping its keys under prefix (for example
// "obgw:replay:") in client. It does no I/O.
func NewRedis(client redis.UniversalClient, prefix string) *Redis {
	return &Redis{client: client, prefix: prefix}
}

// Claim implements Store. The TTL is rounded up to whole milliseconds, so a
// key is remembered at least as long as asked.
func (r *Redis) Claim(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	if r.client == nil {
		return false, errors.New("replay: no Redis client configured; set OBGW_REDIS_URL or use the in-memory store")
	}
	if ttl <= 0 {
		return false, fmt.Errorf("replay: ttl %v must be positive, or keys would never expire", ttl)
	}
	ms := (ttl + time.Millisecond - 1).Milliseconds()
	err := r.client.Do(ctx, "SET", r.prefix+key, "1", "NX", "PX", ms).Err()
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, redis.Nil):
		return false, nil
	default:
		return false, fmt.Errorf("replay: redis: %w", err)
	}
}
