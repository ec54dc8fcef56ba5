package store

import (
	"errors"
	"testing"
)

// TestSandboxMigration13 keeps what migration 12 left: put back the
// customers and accounts tables without owner (the customer number unique
// in the whole bank), with a customer, its account, a PSU-ID and a
// consent in them; migrating again (SQLite rebuilds customers) loses no
// row, every reference holds, and the cascades from customers still
// reach the tables that reference it.
func TestSandboxMigration13(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t).(*sqlStore)
		c := mustCustomer(t, s, "01017012345", CustomerPrivate)
		acct := mustAccount(t, s, c.ID, "NO9312345678903")
		psuID, err := s.PSUID(ctx, "PSDNO-FSA-1", c.ID)
		wantErr(t, "PSUID", err, nil)
		k := &Consent{TPP: "PSDNO-FSA-1", CustomerID: c.ID, Context: string(CustomerPrivate),
			AccountIDs: []string{acct.ID}, Status: ConsentValid, ValidUntil: s.now().AddDate(0, 0, 90), LastSCA: s.now()}
		wantErr(t, "CreateConsent", s.CreateConsent(ctx, k), nil)

		undo := []string{
			`DROP TABLE sandboxes`,
			`DROP INDEX sca_flows_tpp`,
			`DROP INDEX accounts_iban`,
			`DROP INDEX accounts_bban`,
			`ALTER TABLE accounts DROP COLUMN owner`,
			`CREATE UNIQUE INDEX accounts_iban ON accounts (iban) WHERE iban <> ''`,
			`CREATE UNIQUE INDEX accounts_bban ON accounts (bban) WHERE bban <> ''`,
			`DELETE FROM schema_migrations WHERE version = 13`,
		}
		if s.d == postgresDialect {
			undo = append(undo, `DROP INDEX customers_number`, `ALTER TABLE customers DROP COLUMN owner`,
				`ALTER TABLE customers ADD CONSTRAINT customers_number_key UNIQUE (number)`)
		} else {
			var v1 string
			for _, stmt := range migrations[0].stmts {
				if len(stmt) > 24 && stmt[:24] == "CREATE TABLE customers (" {
					v1 = stmt
				}
			}
			undo = append([]string{`PRAGMA foreign_keys = OFF`}, append(undo,
				`CREATE TABLE customers_v1`+v1[len("CREATE TABLE customers"):],
				`INSERT INTO customers_v1 SELECT id, number, name, type, created_at FROM customers`,
				`DROP TABLE customers`,
				`ALTER TABLE customers_v1 RENAME TO customers`,
				`CREATE INDEX customers_created ON customers (created_at, id)`,
				`PRAGMA foreign_keys = ON`)...)
		}
		conn, err := s.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, stmt := range undo {
			if _, err := conn.ExecContext(ctx, s.d.ddl(stmt)); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
		conn.Close()

		s2 := db.open(t) // migrates again
		got, err := s2.GetCustomerByNumber(ctx, "", c.Number)
		if err != nil || got.ID != c.ID {
			t.Fatalf("the customer after migration 13: %+v, %v", got, err)
		}
		if a, err := s2.GetAccountByNumber(ctx, "", acct.IBAN, ""); err != nil || a.ID != acct.ID || a.CustomerID != c.ID {
			t.Fatalf("the account after migration 13: %+v, %v", a, err)
		}
		if byPSU, err := s2.CustomerByPSUID(ctx, "PSDNO-FSA-1", psuID); err != nil || byPSU.ID != c.ID {
			t.Fatalf("the PSU-ID after migration 13: %+v, %v", byPSU, err)
		}
		if got, err := s2.GetConsent(ctx, k.ID); err != nil || len(got.AccountIDs) != 1 || got.AccountIDs[0] != acct.ID {
			t.Fatalf("the consent after migration 13: %+v, %v", got, err)
		}
		// Numbers are unique per sandbox now, and the cascades reach on.
		other := &Customer{Owner: "PSDNO-FSA-1", Number: c.Number, Name: "Kari", Type: CustomerPrivate}
		wantErr(t, "the same number in a sandbox", s2.CreateCustomer(ctx, other), nil)
		wantErr(t, "the same number again", s2.CreateCustomer(ctx, &Customer{Number: c.Number, Name: "x", Type: CustomerPrivate}), ErrConflict)
		wantErr(t, "DeleteCustomer", s2.DeleteCustomer(ctx, c.ID), nil)
		if _, err := s2.GetAccount(ctx, acct.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("the account of a deleted customer: %v", err)
		}
		if _, err := s2.GetConsent(ctx, k.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("the consent of a deleted customer: %v", err)
		}
		if _, err := s2.GetCustomer(ctx, other.ID); err != nil {
			t.Fatalf("the sandbox's customer: %v", err)
		}
	})
}
