package backend

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"github.com/obgw/obgw/backend/sca"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/backend/store/storetest"
)

// unconsentedFlat is how many requests without consent
// TestUnconsentedRequestsLeaveTheStoreFlat sends per store, as issue 15
// asks.
const unconsentedFlat = 100_000

// TestUnconsentedRequestsLeaveTheStoreFlat (issue 15): 100,000 signed
// requests without consent, each with a PSU-ID of its own, answered 401
// with a sealed scaRedirect, leave the database as they found it: every
// table holds the same rows and the files (SQLite: the database and its
// write-ahead log; PostgreSQL: the schema's tables and indexes) are the
// same size. The sandbox's seeding and the first sealing key are written
// by a warm-up before the measure.
func TestUnconsentedRequestsLeaveTheStoreFlat(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			var url string
			var size func() storeSize
			switch kind {
			case "sqlite":
				url = filepath.Join(t.TempDir(), "obgw.db")
				size = func() storeSize { return sqliteSize(t, url) }
			case "postgres":
				url, _ = storetest.Schema(t, "t_flat")
				size = func() storeSize { return postgresSize(t, url) }
			}
			st, err := store.Open(context.Background(), url, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			request, ver := gatewayRequests("flat")
			srv := New(Config{Store: st, Tokens: ver, Sandbox: true})
			send := func() error {
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, request("/v1/accounts", uuid.NewString()))
				if rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Body.String(), `"href":"`+sca.SealedBase) {
					return fmt.Errorf("%d %s, want 401 with a sealed scaRedirect", rec.Code, rec.Body.String())
				}
				return nil
			}
			for range 100 {
				if err := send(); err != nil {
					t.Fatal(err)
				}
			}
			if kind == "postgres" {
				vacuumSchema(t, url)
			}
			before := size()
			var sent atomic.Int64
			var failed atomic.Pointer[error]
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					for sent.Add(1) <= unconsentedFlat && failed.Load() == nil {
						if err := send(); err != nil {
							failed.Store(&err)
						}
					}
				})
			}
			wg.Wait()
			if err := failed.Load(); err != nil {
				t.Fatal(*err)
			}
			after := size()
			if after.bytes != before.bytes {
				t.Errorf("%d requests without consent grew the store from %d to %d bytes", unconsentedFlat, before.bytes, after.bytes)
			}
			for table, n := range after.rows {
				if n != before.rows[table] {
					t.Errorf("%d requests without consent: table %s holds %d rows, %d before", unconsentedFlat, table, n, before.rows[table])
				}
			}
			if len(before.rows) < 10 || before.rows["sealing_keys"] != 1 || before.bytes == 0 {
				t.Errorf("the measure saw %d bytes and rows %v: want the whole schema, one sealing key", before.bytes, before.rows)
			}
		})
	}
}

// storeSize is what a database holds: bytes on disk and rows per table.
type storeSize struct {
	bytes int64
	rows  map[string]int64
}

// sqliteSize measures the SQLite database at path: its file and its
// write-ahead log once the log is copied into the file and emptied (so
// that what the log held counts once, in the file, whenever the store's
// own checkpoints ran), and the rows of every table.
func sqliteSize(t *testing.T, path string) storeSize {
	t.Helper()
	// The store's own checkpoints may be copying the log: wait for them.
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var busy, logged, copied int
	if err := db.QueryRow(`PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logged, &copied); err != nil || busy != 0 {
		t.Fatalf("checkpoint: busy %d, %v", busy, err)
	}
	var out storeSize
	for _, f := range []string{path, path + "-wal"} {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		out.bytes += fi.Size()
	}
	out.rows = tableRows(t, db, tableNames(t, db, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`))
	return out
}

// postgresTables lists the tables of the schema a PostgreSQL store's URL
// names (its search_path).
const postgresTables = `SELECT table_name FROM information_schema.tables
	WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`

// postgresSize measures the store at url (its search_path's schema): the
// main fork of its tables, their TOAST tables and its indexes (where rows
// are written), and the rows of every table.
func postgresSize(t *testing.T, url string) storeSize {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out storeSize
	if err := db.QueryRow(`SELECT coalesce(sum(pg_relation_size(c.oid, 'main') +
			CASE WHEN c.reltoastrelid <> 0 THEN pg_relation_size(c.reltoastrelid, 'main') ELSE 0 END), 0)
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i')`).Scan(&out.bytes); err != nil {
		t.Fatal(err)
	}
	out.rows = tableRows(t, db, tableNames(t, db, postgresTables))
	return out
}

// vacuumSchema vacuums the tables of the store at url (its search_path's
// schema), so that autovacuum, finding nothing left to do, cannot change
// their size while a test measures it.
func vacuumSchema(t *testing.T, url string) {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, name := range tableNames(t, db, postgresTables) {
		if _, err := db.Exec(`VACUUM ` + name); err != nil {
			t.Fatal(err)
		}
	}
}

// tableNames returns the table names the query list selects.
func tableNames(t *testing.T, db *sql.DB, list string) []string {
	t.Helper()
	rows, err := db.Query(list)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	return names
}

// tableRows counts the rows of each of the tables names.
func tableRows(t *testing.T, db *sql.DB, names []string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, name := range names {
		var n int64
		if err := db.QueryRow(`SELECT count(*) FROM ` + name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[name] = n
	}
	return out
}
