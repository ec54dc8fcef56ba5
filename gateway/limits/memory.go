package limits

import (
	"context"
	"hash/maphash"
	"sync"
	"time"
)

const shardCount = 64

// Memory is an in-process Limiter for a single gateway. Keys are spread
// over mutex-guarded shards; each key holds the times of its allowed calls
// in a small sorted array of Limit entries, so Allow on a known key does
// not allocate.
//
// Each shard sweeps keys whose newest call has left the window once per
// eighth of the window, during the Allow that finds the sweep due, so
// memory stays bounded by the keys active in the last window and an eighth.
type Memory struct {
	seed   maphash.Seed
	limit  int
	window int64 // nanoseconds
	sweep  int64 // nanoseconds between sweeps of one shard
	shards [shardCount]memoryShard
}

type memoryShard struct {
	mu        sync.Mutex
	keys      map[string]*callTimes
	nextSweep int64 // unix nanoseconds
	// Pads the shard to its own cache lines so that goroutines working on
	// neighbouring shards do not contend on one line.
	_ [40]byte
}

// callTimes holds the unix-nanosecond times of the allowed calls still in
// the window, ascending, in t[:n].
type callTimes struct {
	n int
	t []int64
}

var _ Limiter = (*Memory)(nil)

// NewMemory returns an empty in-process limiter. Zero Config fields take the
// defaults; values out of range are clamped (never loosened).
func NewMemory(cfg Config) *Memory {
	cfg = cfg.normalized()
	m := &Memory{
		seed:   maphash.MakeSeed(),
		limit:  cfg.Limit,
		window: int64(cfg.Window),
		sweep:  int64(cfg.Window / 8),
	}
	for i := range m.shards {
		m.shards[i].keys = make(map[string]*callTimes)
	}
	return m
}

// Allow implements Limiter. It never fails.
func (m *Memory) Allow(_ context.Context, key string, now time.Time) (Decision, error) {
	t := now.UnixNano()
	cutoff := t - m.window // calls at or before cutoff have left the window
	s := &m.shards[maphash.String(m.seed, key)%shardCount]
	s.mu.Lock()
	defer s.mu.Unlock()
	if t >= s.nextSweep {
		s.sweepBefore(cutoff)
		s.nextSweep = t + m.sweep
	}
	c := s.keys[key]
	if c == nil {
		c = &callTimes{t: make([]int64, m.limit)}
		s.keys[key] = c
	}
	expired := 0
	for expired < c.n && c.t[expired] <= cutoff {
		expired++
	}
	if expired > 0 {
		copy(c.t, c.t[expired:c.n])
		c.n -= expired
	}
	if c.n >= m.limit {
		// The call at index n-limit is the one whose departure brings the
		// count under the limit (index 0 while n never exceeds the limit).
		oldest := c.t[c.n-m.limit]
		return Decision{RetryAfter: retryAfter(time.Duration(oldest + m.window - t))}, nil
	}
	// Concurrent callers may pass their now out of order; insert sorted so
	// that expiry from the front stays exact.
	i := c.n
	for i > 0 && c.t[i-1] > t {
		c.t[i] = c.t[i-1]
		i--
	}
	c.t[i] = t
	c.n++
	return Decision{Allowed: true, Remaining: m.limit - c.n, Reservation: Reservation{at: t}}, nil
}

// Release implements Limiter: it removes one call recorded at the
// reservation's time.
func (m *Memory) Release(_ context.Context, key string, r Reservation) error {
	if r.at == 0 {
		return nil
	}
	s := &m.shards[maphash.String(m.seed, key)%shardCount]
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.keys[key]
	if c == nil {
		return nil
	}
	for i := 0; i < c.n; i++ {
		if c.t[i] == r.at {
			copy(c.t[i:], c.t[i+1:c.n])
			c.n--
			return nil
		}
	}
	return nil
}

// sweepBefore drops keys with no call after cutoff.
func (s *memoryShard) sweepBefore(cutoff int64) {
	for k, c := range s.keys {
		if c.n == 0 || c.t[c.n-1] <= cutoff {
			delete(s.keys, k)
		}
	}
}

// Len returns the number of keys held, including those not yet swept; for
// tests and metrics.
func (m *Memory) Len() int {
	n := 0
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		n += len(s.keys)
		s.mu.Unlock()
	}
	return n
}
