package replay

import (
	"context"
	"hash/maphash"
	"sync"
	"time"
)

const shardCount = 32

// Memory is an in-process Store. Expired keys are swept as new ones arrive,
// so memory stays proportional to the keys claimed within one TTL.
type Memory struct {
	seed   maphash.Seed
	shards [shardCount]shard
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

type shard struct {
	mu        sync.Mutex
	expiry    map[string]int64 // unix nanoseconds
	nextSweep int64
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
	m := &Memory{seed: maphash.MakeSeed()}
	for i := range m.shards {
		m.shards[i].expiry = make(map[string]int64)
	}
	return m
}

// Claim implements Store.
func (m *Memory) Claim(_ context.Context, key string, ttl time.Duration) (bool, error) {
	now := time.Now
	if m.Now != nil {
		now = m.Now
	}
	t := now().UnixNano()
	s := &m.shards[maphash.String(m.seed, key)%shardCount]
	s.mu.Lock()
	defer s.mu.Unlock()
	if t >= s.nextSweep {
		for k, exp := range s.expiry {
			if exp <= t {
				delete(s.expiry, k)
			}
		}
		s.nextSweep = t + int64(ttl)/2
	}
	if exp, ok := s.expiry[key]; ok && exp > t {
		return false, nil
	}
	s.expiry[key] = t + int64(ttl)
	return true, nil
}

// Len returns the number of keys held, expired or not; for tests and metrics.
func (m *Memory) Len() int {
	n := 0
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		n += len(s.expiry)
		s.mu.Unlock()
	}
	return n
}
