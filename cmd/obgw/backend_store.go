package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	"github.com/obgw/obgw/backend/store"
)

// openBackendStore opens the in-process backend's database as the
// operator commands name it: --database (a postgres:// URL or a SQLite
// file), else obgw.db under --data-dir, else under Caddy's data
// directory + /obgw, as obgw_backend finds it in the shipped
// configuration. A SQLite file must exist unless create: never make an
// empty database where the operator expected one.
func openBackendStore(ctx context.Context, fl caddycmd.Flags, create bool) (store.Store, error) {
	db := fl.String("database")
	if db == "" {
		dir := fl.String("data-dir")
		if dir == "" {
			dir = filepath.Join(caddy.AppDataDir(), "obgw")
		}
		db = filepath.Join(dir, "obgw.db")
	}
	if !strings.HasPrefix(db, "postgres://") && !strings.HasPrefix(db, "postgresql://") {
		if _, err := os.Stat(db); err != nil && !create {
			return nil, fmt.Errorf("no database at %s: %v", db, err)
		}
		if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
			return nil, err
		}
	}
	st, err := store.Open(ctx, db, store.Options{})
	if err != nil {
		return nil, fmt.Errorf("opening the database: %v", err)
	}
	return st, nil
}
