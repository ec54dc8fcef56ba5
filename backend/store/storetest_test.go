package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver for the admin connection
)

// The shared suite: every test runs against every backend, SQLite in a
// temporary directory and PostgreSQL in a fresh schema dropped afterwards.
// PostgreSQL must be reachable (CI starts it); set OBGW_SKIP_POSTGRES=1 to
// run the SQLite half alone.

// testPostgresURL is the PostgreSQL the suite uses (trust auth).
func testPostgresURL() string {
	if u := os.Getenv("OBGW_TEST_POSTGRES_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
}

// testDB is a database for one test: Open it as often as needed to get
// several Store instances on the same data.
type testDB struct {
	// url and opt are Open's arguments.
	url string
	opt Options
}

// open opens a Store on db, closed when the test ends.
func (db testDB) open(t testing.TB) Store {
	t.Helper()
	s, err := Open(context.Background(), db.url, db.opt)
	if err != nil {
		t.Fatalf("Open(%q, schema %q): %v", db.url, db.opt.Schema, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// backend makes fresh databases of one engine.
type backend struct {
	// name names the subtests.
	name string
	// newDB returns an empty database for t, removed when t ends.
	newDB func(t testing.TB, clock func() time.Time) testDB
}

// backends are the engines the suite runs on.
func backends() []backend {
	b := []backend{{"sqlite", sqliteTestDB}}
	if os.Getenv("OBGW_SKIP_POSTGRES") != "1" {
		b = append(b, backend{"postgres", postgresTestDB})
	}
	return b
}

// forEachBackend runs fn as a parallel subtest per backend, on a fresh
// database with a ticking test clock.
func forEachBackend(t *testing.T, fn func(t *testing.T, db testDB)) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			fn(t, b.newDB(t, tickClock()))
		})
	}
}

// sqliteTestDB is a database file in t's temporary directory.
func sqliteTestDB(t testing.TB, clock func() time.Time) testDB {
	return testDB{url: filepath.Join(t.TempDir(), "store.db"), opt: Options{Clock: clock}}
}

// pgAdmin is a connection to the test PostgreSQL for creating and dropping
// schemas, opened once.
var pgAdmin = sync.OnceValues(func() (*sql.DB, error) {
	db, err := sql.Open("pgx", testPostgresURL())
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
})

// postgresTestDB is a fresh schema on the test PostgreSQL, dropped when t
// ends. An unreachable PostgreSQL fails the test.
func postgresTestDB(t testing.TB, clock func() time.Time) testDB {
	t.Helper()
	admin, err := pgAdmin()
	if err != nil {
		t.Fatalf("PostgreSQL at %s is not reachable (%v): start it, or set OBGW_SKIP_POSTGRES=1 to test SQLite only",
			testPostgresURL(), err)
	}
	var raw [8]byte
	rand.Read(raw[:])
	schema := "t_" + hex.EncodeToString(raw[:])
	t.Cleanup(func() {
		if _, err := admin.Exec(`DROP SCHEMA IF EXISTS ` + schema + ` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return testDB{url: testPostgresURL(), opt: Options{Clock: clock, Schema: schema, MaxOpenConns: 12}}
}

// tickClock is a clock that advances a millisecond per reading, starting
// off UTC and with nanoseconds, so the store's normalisation (UTC,
// microseconds) is exercised and creation order is strict.
func tickClock() func() time.Time {
	base := time.Date(2025, 3, 1, 12, 0, 0, 123456789, time.FixedZone("CET", 3600))
	var n atomic.Int64
	return func() time.Time { return base.Add(time.Duration(n.Add(1)) * time.Millisecond) }
}

// wantErr fails t unless err is target (nil: no error).
func wantErr(t testing.TB, what string, err, target error) {
	t.Helper()
	switch {
	case target == nil && err != nil:
		t.Fatalf("%s: unexpected error %v", what, err)
	case target != nil && !errors.Is(err, target):
		t.Fatalf("%s: error %v, want %v", what, err, target)
	}
}

// ctx is the context of the suite's calls.
var ctx = context.Background()

// mustCustomer creates a customer.
func mustCustomer(t testing.TB, s Store, number string, typ CustomerType) *Customer {
	t.Helper()
	c := &Customer{Number: number, Name: "Customer " + number, Type: typ}
	wantErr(t, "CreateCustomer", s.CreateCustomer(ctx, c), nil)
	return c
}

// mustAccount creates an account (iban set) or card account (iban empty).
func mustAccount(t testing.TB, s Store, customerID, iban string) *Account {
	t.Helper()
	a := &Account{CustomerID: customerID, Kind: KindAccount, Name: "Brukskonto", Product: "Standard",
		CashAccountType: "CACC", Currency: "NOK", IBAN: iban, BBAN: iban[min(4, len(iban)):]}
	if iban == "" {
		a.Kind, a.CashAccountType, a.MaskedPAN = KindCardAccount, "CARD", "525412******3241"
	}
	wantErr(t, "CreateAccount", s.CreateAccount(ctx, a), nil)
	return a
}

// mustAgreement creates an agreement owned by ownerID.
func mustAgreement(t testing.TB, s Store, ownerID string, e ...Engagement) *Agreement {
	t.Helper()
	a := &Agreement{OwnerID: ownerID, Name: "Agreement", Engagements: e}
	wantErr(t, "CreateAgreement", s.CreateAgreement(ctx, a), nil)
	return a
}
