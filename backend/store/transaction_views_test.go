package store

import (
	"encoding/json"
	"reflect"
	"testing"
)

// statementLine is a transaction with members of both views.
const statementLine = `{"creditorName":"Kiwi","remittanceInformationUnstructured":"Mat",
	"creditorAccount":{"bban":"12345678903"},"ultimateCreditor":"Kiwi AS","purposeCode":"GDSV",
	"endToEndIdentification":"e2e-1","currencyExchange":{"sourceCurrency":"EUR"}}`

// members decodes a details object, failing the test when it is not one.
func members(t *testing.T, what string, d json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(d, &m); err != nil {
		t.Fatalf("%s %s: %v", what, d, err)
	}
	return m
}

// TestTransactionListIsLighter is point 13 of issue 14: the listing shows
// the lighter view, the transaction's details the whole.
func TestTransactionListIsLighter(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		c := mustCustomer(t, s, "01017012345", CustomerPrivate)
		a := mustAccount(t, s, c.ID, "NO9312345678903")
		txs := []Transaction{
			{Booked: true, Amount: -100, Currency: "NOK", BookingDate: "2025-01-10", Details: json.RawMessage(statementLine)},
			{Booked: true, Amount: -200, Currency: "NOK", BookingDate: "2025-01-11", Details: json.RawMessage(`{"purposeCode":"CASH"}`)},
			{Booked: false, Amount: -300, Currency: "NOK", Details: json.RawMessage(`{"debtorName":"Ola"}`)},
		}
		wantErr(t, "AddTransactions", s.AddTransactions(ctx, a.ID, txs), nil)
		list, _, err := s.ListTransactions(ctx, a.ID, TransactionFilter{Booked: true, Pending: true})
		wantErr(t, "ListTransactions", err, nil)
		byID := map[string]json.RawMessage{}
		for _, l := range list {
			byID[l.ID] = l.Details
		}
		wantList := map[string]any{"creditorName": "Kiwi", "remittanceInformationUnstructured": "Mat",
			"endToEndIdentification": "e2e-1", "currencyExchange": map[string]any{"sourceCurrency": "EUR"}}
		if got := members(t, "listed", byID[txs[0].ID]); !reflect.DeepEqual(got, wantList) {
			t.Errorf("listed details %v, want %v", got, wantList)
		}
		if d := byID[txs[1].ID]; d != nil {
			t.Errorf("a transaction with only details-view members lists details %s, want none", d)
		}
		if got := members(t, "listed", byID[txs[2].ID]); !reflect.DeepEqual(got, map[string]any{"debtorName": "Ola"}) {
			t.Errorf("pending listed details %v", got)
		}
		for i, tx := range txs {
			got, err := s.GetTransaction(ctx, a.ID, tx.ID)
			wantErr(t, "GetTransaction", err, nil)
			if g, w := members(t, "details", got.Details), members(t, "stored", tx.Details); !reflect.DeepEqual(g, w) {
				t.Errorf("tx %d: details %v, want all of %v", i, g, w)
			}
		}
	})
}

// TestTransactionDetailsMigration8 splits the transactions stored before
// the list view had its own column.
func TestTransactionDetailsMigration8(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t).(*sqlStore)
		c := mustCustomer(t, s, "01017012345", CustomerPrivate)
		a := mustAccount(t, s, c.ID, "NO9312345678903")
		txs := []Transaction{{Booked: true, Amount: -100, Currency: "NOK", BookingDate: "2025-01-10"}}
		wantErr(t, "AddTransactions", s.AddTransactions(ctx, a.ID, txs), nil)
		for _, stmt := range []string{
			`ALTER TABLE transactions DROP COLUMN details_extra`,
			`DELETE FROM schema_migrations WHERE version = 8`,
		} {
			if _, err := s.db.ExecContext(ctx, stmt); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
		if _, err := s.db.ExecContext(ctx, `UPDATE transactions SET details = $1 WHERE id = $2`, statementLine, txs[0].ID); err != nil {
			t.Fatal(err)
		}
		s2 := db.open(t) // migrates again
		list, _, err := s2.ListTransactions(ctx, a.ID, TransactionFilter{Booked: true})
		wantErr(t, "ListTransactions", err, nil)
		if len(list) != 1 {
			t.Fatalf("%d transactions listed, want 1", len(list))
		}
		if m := members(t, "listed", list[0].Details); m["creditorAccount"] != nil || m["creditorName"] != "Kiwi" {
			t.Errorf("migrated row lists %v, want the list view", m)
		}
		got, err := s2.GetTransaction(ctx, a.ID, txs[0].ID)
		wantErr(t, "GetTransaction", err, nil)
		if g, w := members(t, "details", got.Details), members(t, "stored", json.RawMessage(statementLine)); !reflect.DeepEqual(g, w) {
			t.Errorf("migrated details %v, want %v", g, w)
		}
	})
}

// TestBookedCountMigration10 fills the accounts' booked totals from the
// transactions stored before them; later batches add to them.
func TestBookedCountMigration10(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t).(*sqlStore)
		c := mustCustomer(t, s, "01017012345", CustomerPrivate)
		a := mustAccount(t, s, c.ID, "NO9312345678903")
		batch := func() []Transaction {
			return []Transaction{
				{Booked: true, Amount: -1, Currency: "NOK", BookingDate: "2025-01-10"},
				{Booked: true, Amount: -2, Currency: "NOK", BookingDate: "2025-01-11"},
				{Booked: false, Amount: -3, Currency: "NOK"},
			}
		}
		wantErr(t, "AddTransactions", s.AddTransactions(ctx, a.ID, batch()), nil)
		for _, stmt := range []string{
			`DROP INDEX transaction_day_counts_cover`,
			`ALTER TABLE accounts DROP COLUMN booked_count`,
			`DELETE FROM schema_migrations WHERE version = 10`,
		} {
			if _, err := s.db.ExecContext(ctx, stmt); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
		s2 := db.open(t) // migrates again
		wantErr(t, "AddTransactions after the migration", s2.AddTransactions(ctx, a.ID, batch()), nil)
		_, total, err := s2.ListTransactions(ctx, a.ID, TransactionFilter{Booked: true, Limit: 1})
		wantErr(t, "ListTransactions", err, nil)
		if total != 4 {
			t.Errorf("booked total %d after the migration and a batch, want 4", total)
		}
		_, total, _ = s2.ListTransactions(ctx, a.ID, TransactionFilter{Booked: true, Limit: 1, DateFrom: "2025-01-11"})
		if total != 2 {
			t.Errorf("booked total from 2025-01-11: %d, want 2", total)
		}
	})
}
