package caddymodule

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/obgw/obgw/backend/store"
)

// stores shares one open store per database among every obgw_backend
// handler of a process and across config reloads; the last user closes it.
var stores = caddy.NewUsagePool()

// sharedStore opens its database on first use and again after a failure,
// so a database that is down at start-up is retried, not fatal.
type sharedStore struct {
	url string

	mu sync.Mutex
	st store.Store
}

// get returns the open store.
func (s *sharedStore) get(ctx context.Context) (store.Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st != nil {
		return s.st, nil
	}
	if dir := filepath.Dir(s.url); !isURL(s.url) && dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	st, err := store.Open(ctx, s.url, store.Options{})
	if err != nil {
		return nil, err
	}
	// A sandbox holds no data of its own: every TPP's sandbox is seeded
	// at its first call (backend's openSandbox).
	// Every operation timed (obgw_store_duration_seconds).
	s.st = store.Observed(st, obgwMetrics.storeOp)
	return s.st, nil
}

// ping opens the store if it is not yet and checks that its database
// answers.
func (s *sharedStore) ping(ctx context.Context) error {
	st, err := s.get(ctx)
	if err != nil {
		return err
	}
	return st.Ping(ctx)
}

// Destruct closes the store when no configuration uses it any more.
func (s *sharedStore) Destruct() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st != nil {
		return s.st.Close()
	}
	return nil
}

// defaultDataDir is where the embedded SQLite file lives when neither a
// database nor a data_dir is given: Caddy's data directory/obgw for
// production, and its sandbox subdirectory for a sandbox, so that a
// sandbox and a production run on one machine never share a store (the
// sandbox's customers are the data set's; production's the bank's).
func defaultDataDir(environment string) string {
	if environment == EnvSandbox {
		return filepath.Join(caddy.AppDataDir(), "obgw", "sandbox")
	}
	return filepath.Join(caddy.AppDataDir(), "obgw")
}

func isURL(s string) bool {
	for _, p := range []string{"postgres://", "postgresql://"} {
		if len(s) >= len(p) && s[:len(p)] == p {
			return true
		}
	}
	return false
}

var _ caddy.Destructor = (*sharedStore)(nil)
