package limits

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// allowScript is the whole decision for one call, atomic in Redis.
// The key is a sorted set of allowed calls scored by their time in
// microseconds. Times are computed by the caller and passed as decimal
// strings so that no precision is lost in Lua's doubles on the way in.
//
//	KEYS[1]  the limiter key
//	ARGV[1]  now, unix microseconds
//	ARGV[2]  cutoff = now - window; calls scored at or before it have left
//	ARGV[3]  limit
//	ARGV[4]  unique member for this call
//	ARGV[5]  window in milliseconds, the key's time to live
//
// It returns {allowed (0/1), calls in the window, score of the call whose
// departure frees a slot (0 if allowed)}.
var allowScript = redis.NewScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local n = redis.call('ZCARD', KEYS[1])
local limit = tonumber(ARGV[3])
if n < limit then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return {1, n + 1, 0}
end
local first = redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')
return {0, n, tonumber(first[2])}
`)

// Redis is a Limiter whose counts live in Redis, so that every gateway
// sharing the Redis shares one limit. Each Allow is one EVALSHA (falling back
// to EVAL once after a Redis restart) of a script that expires old calls,
// counts, and records the call if allowed; the key expires one window after
// its newest call.
//
// Scores are the caller's clock in microseconds, not Redis TIME, so the
// gateways' clocks must be synchronised (as the Date check already
// requires); a skew of s between gateways moves a call's expiry by s.
type Redis struct {
	client   redis.UniversalClient
	prefix   string
	limit    int
	windowUS int64
	windowMS int64
}

var _ Limiter = (*Redis)(nil)

// NewRedis returns a Limiter backed by client, with every key under prefix
// (for example "obgw:pnp:"). Zero Config fields take the defaults; values
// Config.Validate rejects are clamped (never loosened). It does no I/O.
func NewRedis(client redis.UniversalClient, cfg Config, prefix string) *Redis {
	cfg = cfg.normalized()
	return &Redis{
		client:   client,
		prefix:   prefix,
		limit:    cfg.Limit,
		windowUS: cfg.Window.Microseconds(),
		windowMS: (cfg.Window + time.Millisecond - 1).Milliseconds(),
	}
}

// errNoClient is returned instead of panicking on a nil client.
var errNoClient = errors.New("limits: no Redis client configured; set OBGW_REDIS_URL or use the in-memory limiter")

// Allow implements Limiter. Errors from Redis are returned wrapped, with the
// zero Decision; the caller applies its on_error policy.
func (r *Redis) Allow(ctx context.Context, key string, now time.Time) (Decision, error) {
	if r.client == nil {
		return Decision{}, errNoClient
	}
	nowUS := now.UnixMicro()
	member := make([]byte, 0, 40)
	member = strconv.AppendInt(member, nowUS, 10)
	member = append(member, '-')
	member = strconv.AppendUint(member, rand.Uint64(), 36)
	res, err := allowScript.Run(ctx, r.client, []string{r.prefix + key},
		nowUS, nowUS-r.windowUS, r.limit, member, r.windowMS).Int64Slice()
	if err != nil {
		return Decision{}, fmt.Errorf("limits: redis: %w", err)
	}
	if len(res) != 3 {
		return Decision{}, fmt.Errorf("limits: redis: script returned %d values, want 3; is another program writing under prefix %q?", len(res), r.prefix)
	}
	if res[0] == 1 {
		return Decision{Allowed: true, Remaining: max(r.limit-int(res[1]), 0), Reservation: Reservation{member: string(member)}}, nil
	}
	freesAt := time.UnixMicro(res[2] + r.windowUS)
	return Decision{RetryAfter: retryAfter(freesAt.Sub(now))}, nil
}

// Release implements Limiter: the call's member leaves the key's sorted
// set, atomically (one ZREM), whichever gateway counted it.
func (r *Redis) Release(ctx context.Context, key string, res Reservation) error {
	if res.member == "" {
		return nil
	}
	if r.client == nil {
		return errNoClient
	}
	if err := r.client.ZRem(ctx, r.prefix+key, res.member).Err(); err != nil {
		return fmt.Errorf("limits: redis: %w", err)
	}
	return nil
}
