package registry

import (
	"context"
	"errors"
	"fmt"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/sync/singleflight"
)

// CacheConfig tunes a Cache.
type CacheConfig struct {
	// Size is the number of identifiers kept (default 10000).
	Size int
	// TTL is how long a found entry is served without asking the source
	// again (default 5 minutes).
	TTL time.Duration
	// NegativeTTL is how long "not registered" is remembered (default 1 minute).
	NegativeTTL time.Duration
	// MaxStale is how long past its TTL an entry is still served while the
	// source fails (default 1 hour; negative: never). After that the lookup
	// fails closed.
	MaxStale time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

type cached struct {
	entry   *Entry // nil: not registered
	fetched time.Time
}

// lookupTimeout bounds one source lookup shared by concurrent misses.
const lookupTimeout = 10 * time.Second

// Cache is an LRU in front of a Source.
type Cache struct {
	src Source
	cfg CacheConfig
	lru *lru.Cache[string, cached]

	flights singleflight.Group // source lookups by identifier
}

// NewCache wraps src.
func NewCache(src Source, cfg CacheConfig) (*Cache, error) {
	if cfg.Size <= 0 {
		cfg.Size = 10000
	}
	if cfg.TTL <= 0 {
		cfg.TTL = 5 * time.Minute
	}
	if cfg.NegativeTTL <= 0 {
		cfg.NegativeTTL = time.Minute
	}
	if cfg.MaxStale < 0 {
		cfg.MaxStale = 0
	} else if cfg.MaxStale == 0 {
		cfg.MaxStale = time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	l, err := lru.New[string, cached](cfg.Size)
	if err != nil {
		return nil, err
	}
	return &Cache{src: src, cfg: cfg, lru: l}, nil
}

// Lookup returns the entry for orgID. It answers ErrNotFound for an unknown
// TPP and ErrUnavailable when the source fails and nothing usable is cached.
// Concurrent misses for one identifier share a single source lookup.
func (c *Cache) Lookup(ctx context.Context, orgID string) (*Entry, error) {
	now := c.cfg.Now()
	old, have := c.lru.Get(orgID)
	if have {
		ttl := c.cfg.TTL
		if old.entry == nil {
			ttl = c.cfg.NegativeTTL
		}
		if now.Sub(old.fetched) < ttl {
			return old.result()
		}
	}
	entry, err := c.fetch(ctx, orgID)
	switch {
	case err == nil:
		c.lru.Add(orgID, cached{entry: entry, fetched: now})
		return entry, nil
	case errors.Is(err, ErrNotFound):
		c.lru.Add(orgID, cached{fetched: now})
		return nil, ErrNotFound
	}
	// The source failed: serve what we had, within the stale bound.
	if have {
		ttl := c.cfg.TTL
		if old.entry == nil {
			ttl = c.cfg.NegativeTTL
		}
		if now.Sub(old.fetched) < ttl+c.cfg.MaxStale {
			return old.result()
		}
	}
	return nil, ErrUnavailable
}

func (v cached) result() (*Entry, error) {
	if v.entry == nil {
		return nil, ErrNotFound
	}
	return v.entry, nil
}

// fetch asks the source, sharing one lookup among concurrent callers for
// orgID. The lookup runs in its own goroutine and serves every caller, so
// it must not die with the first caller's request: it is detached from
// that cancellation and bounded in time, while each caller still stops
// waiting when its own request ends.
func (c *Cache) fetch(ctx context.Context, orgID string) (*Entry, error) {
	ch := c.flights.DoChan(orgID, func() (v any, err error) {
		// A panic in DoChan's goroutine would end the process; a source
		// that panics is a source that failed.
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("registry: lookup of %s panicked: %v", orgID, r)
			}
		}()
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lookupTimeout)
		defer cancel()
		return c.src.Lookup(lctx, orgID)
	})
	select {
	case res := <-ch:
		entry, _ := res.Val.(*Entry)
		return entry, res.Err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
