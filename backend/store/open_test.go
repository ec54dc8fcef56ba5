package store

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMigrationsIdempotent(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		// Fresh database, several processes starting at once.
		stores := make([]Store, 4)
		concurrently(t, len(stores), func(i int) (string, error) {
			s, err := Open(ctx, db.url, db.opt)
			stores[i] = s
			return "", err
		})
		for _, s := range stores {
			s.Close()
		}
		s := db.open(t)
		c := mustCustomer(t, s, "01017012345", CustomerPrivate)
		s.Close()

		s = db.open(t) // and once more on a migrated database with data
		if _, err := s.GetCustomer(ctx, c.ID); err != nil {
			t.Fatalf("data lost across Open: %v", err)
		}
		var versions, max int
		err := s.(*sqlStore).db.QueryRow(`SELECT COUNT(*), MAX(version) FROM schema_migrations`).Scan(&versions, &max)
		wantErr(t, "read schema_migrations", err, nil)
		if versions != len(migrations) || max != int(migrations[len(migrations)-1].version) {
			t.Fatalf("schema_migrations has %d rows up to %d, want %d up to %d",
				versions, max, len(migrations), migrations[len(migrations)-1].version)
		}
	})
}

func TestTwoInstancesActAsOne(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s1, s2 := db.open(t), db.open(t)
		c := mustCustomer(t, s1, "01017012345", CustomerPrivate)
		got, err := s2.GetCustomerByNumber(ctx, "", c.Number)
		wantErr(t, "second instance reads the first's customer", err, nil)
		if got.ID != c.ID {
			t.Fatalf("second instance sees %+v, want %+v", got, c)
		}
		wantErr(t, "duplicate across instances", s2.CreateCustomer(ctx,
			&Customer{Number: c.Number, Name: "X", Type: CustomerPrivate}), ErrConflict)
		ids := concurrently(t, 20, func(i int) (string, error) {
			if i%2 == 0 {
				return s1.PSUID(ctx, "PSDNO-FSA-111111111", c.ID)
			}
			return s2.PSUID(ctx, "PSDNO-FSA-111111111", c.ID)
		})
		for i, id := range ids {
			if id != ids[0] {
				t.Fatalf("instance %d got PSU-ID %q, instance 1 %q", i%2+1, id, ids[0])
			}
		}
		wantErr(t, "DeleteCustomer on the second", s2.DeleteCustomer(ctx, c.ID), nil)
		_, err = s1.GetCustomer(ctx, c.ID)
		wantErr(t, "first instance after the second deleted", err, ErrNotFound)
	})
}

func TestUnavailable(t *testing.T) {
	t.Run("postgres unreachable", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := Open(ctx, "postgres://postgres:secret-pw@127.0.0.1:1/test?sslmode=disable&connect_timeout=2", Options{})
		wantErr(t, "Open of a closed port", err, ErrUnavailable)
		if strings.Contains(err.Error(), "secret-pw") {
			t.Fatalf("error echoes the password: %v", err)
		}
	})
	t.Run("sqlite directory missing", func(t *testing.T) {
		_, err := Open(ctx, filepath.Join(t.TempDir(), "missing", "store.db"), Options{})
		wantErr(t, "Open in a missing directory", err, ErrUnavailable)
	})
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		c := mustCustomer(t, s, "01017012345", CustomerPrivate)
		a := mustAccount(t, s, c.ID, "NO9312345678903")
		s.Close()
		calls := []struct {
			name string
			call func() error
		}{
			{"GetCustomer", func() error { _, err := s.GetCustomer(ctx, c.ID); return err }},
			{"CreateCustomer", func() error {
				return s.CreateCustomer(ctx, &Customer{Number: "2", Name: "X", Type: CustomerPrivate})
			}},
			{"SetBalances", func() error { return s.SetBalances(ctx, a.ID, nil) }},
			{"ListTransactions", func() error {
				_, _, err := s.ListTransactions(ctx, a.ID, TransactionFilter{Booked: true})
				return err
			}},
			{"PSUID", func() error { _, err := s.PSUID(ctx, "tpp", c.ID); return err }},
			{"DeleteCustomer", func() error { return s.DeleteCustomer(ctx, c.ID) }},
		}
		for _, tt := range calls {
			wantErr(t, tt.name+" on a closed store", tt.call(), ErrUnavailable)
		}
	})
	t.Run("deadline", func(t *testing.T) {
		for _, b := range backends() {
			s := b.newDB(t, nil).open(t)
			expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
			_, err := s.GetCustomer(expired, "enc!!x")
			cancel()
			wantErr(t, b.name+" GetCustomer with an expired context", err, ErrUnavailable)
			if !errors.Is(err, ErrUnavailable) || errors.Is(err, ErrNotFound) {
				t.Fatalf("%s: %v", b.name, err)
			}
		}
	})
}

func TestOpenRefuses(t *testing.T) {
	tests := []struct {
		name string
		url  string
		opt  Options
	}{
		{"unknown scheme", "mysql://root@localhost/db", Options{}},
		{"empty sqlite path", "sqlite:", Options{}},
		{"schema needing quotes", testPostgresURL(), Options{Schema: `x"; DROP TABLE customers; --`}},
		{"upper-case schema", testPostgresURL(), Options{Schema: "Test"}},
		{"bad postgres URL", "postgres://%zz", Options{}},
	}
	for _, tt := range tests {
		_, err := Open(ctx, tt.url, tt.opt)
		wantErr(t, tt.name, err, ErrInvalid)
	}
}

func TestSQLiteInMemory(t *testing.T) {
	// One connection serves everything: a query issued while another's rows
	// are still open would wait forever, so bound the whole run.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := Open(ctx, "sqlite::memory:", Options{})
	wantErr(t, "Open :memory:", err, nil)
	defer s.Close()
	c := &Customer{Number: "1", Name: "A", Type: CustomerCorporate}
	wantErr(t, "CreateCustomer", s.CreateCustomer(ctx, c), nil)
	a := &Account{CustomerID: c.ID, Kind: KindAccount, IBAN: "NO9312345678903"}
	wantErr(t, "CreateAccount", s.CreateAccount(ctx, a), nil)
	wantErr(t, "CreateAgreement", s.CreateAgreement(ctx, &Agreement{OwnerID: c.ID,
		Engagements: []Engagement{{CustomerID: c.ID, AccountID: a.ID, Roles: []string{RoleView}}}}), nil)
	wantErr(t, "AddTransactions", s.AddTransactions(ctx, a.ID, []Transaction{
		{Booked: true, BookingDate: "2025-01-01"}, {Booked: true, BookingDate: "2025-01-02"}}), nil)
	wantErr(t, "CreateConsent", s.CreateConsent(ctx, &Consent{TPP: "t", CustomerID: c.ID,
		AccountIDs: []string{a.ID}, Status: ConsentValid}), nil)
	txs, total, err := s.ListTransactions(ctx, a.ID, TransactionFilter{Booked: true, Pending: true, Limit: 1})
	if err != nil || len(txs) != 1 || total != 2 {
		t.Fatalf("ListTransactions = %d, %d, %v; want 1 of 2", len(txs), total, err)
	}
	ags, err := s.ListAgreementsOf(ctx, c.ID)
	if err != nil || len(ags) != 1 || len(ags[0].Engagements) != 1 {
		t.Fatalf("ListAgreementsOf = %+v, %v", ags, err)
	}
	cs, err := s.ListConsents(ctx, "t", c.ID)
	if err != nil || len(cs) != 1 || len(cs[0].AccountIDs) != 1 {
		t.Fatalf("ListConsents = %+v, %v", cs, err)
	}
	if _, err := s.ListBalances(ctx, a.ID); err != nil {
		t.Fatalf("ListBalances: %v", err)
	}
	wantErr(t, "DeleteCustomer", s.DeleteCustomer(ctx, c.ID), nil)
}
