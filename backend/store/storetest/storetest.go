// Package storetest gives tests outside the store package a database of
// their own on the real PostgreSQL server: a fresh schema per test, dropped
// when the test ends, so parallel and repeated runs never collide.
package storetest

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// DefaultPostgresURL is the test server (trust auth, database test).
const DefaultPostgresURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// PostgresURL returns OBGW_TEST_POSTGRES_URL or DefaultPostgresURL.
func PostgresURL() string {
	if u := os.Getenv("OBGW_TEST_POSTGRES_URL"); u != "" {
		return u
	}
	return DefaultPostgresURL
}

// Schema creates a schema named prefix_<random> and returns its name and a
// URL whose connections use it (search_path). The schema is dropped at the
// end of the test. An unreachable server fails the test; it is skipped only
// when OBGW_SKIP_POSTGRES=1.
func Schema(t testing.TB, prefix string) (url, schema string) {
	t.Helper()
	if os.Getenv("OBGW_SKIP_POSTGRES") == "1" {
		t.Skip("OBGW_SKIP_POSTGRES=1")
	}
	b := make([]byte, 6)
	rand.Read(b)
	schema = prefix + "_" + hex.EncodeToString(b)
	base := PostgresURL()
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("PostgreSQL: %v", err)
	}
	if _, err := db.Exec(`CREATE SCHEMA ` + schema); err != nil {
		db.Close()
		t.Fatalf("PostgreSQL at %s: %v (start it, or set OBGW_SKIP_POSTGRES=1 to skip)", base, err)
	}
	t.Cleanup(func() {
		defer db.Close()
		if _, err := db.Exec(`DROP SCHEMA IF EXISTS ` + schema + ` CASCADE`); err != nil {
			t.Logf("dropping schema %s: %v", schema, err)
		}
	})
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + schema, schema
}

// Analyze refreshes the planner statistics of the database at url, as
// autovacuum would on a live server, so benchmarks that just bulk-loaded
// rows measure the plans production gets.
func Analyze(t testing.TB, url string) {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`ANALYZE`); err != nil {
		t.Fatalf("ANALYZE: %v", err)
	}
}
