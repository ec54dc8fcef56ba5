package store

import (
	"testing"
	"time"
)

// TestStatementCounts: Statements counts each statement run, and a parse
// only the first time a statement is met (per connection on PostgreSQL,
// whose pool here is held to one connection): reads repeated after the
// first parse nothing. A text built per call (an IN list, run without the
// statement cache) is parsed each time on SQLite. A wrapper of the store
// reports the same counts.
func TestStatementCounts(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		db.opt.MaxOpenConns = 1
		st := db.open(t)
		c := mustCustomer(t, st, "01017012345", CustomerPrivate)
		a := mustAccount(t, st, c.ID, "NO9312345678903")
		read := func() {
			t.Helper()
			if _, err := st.GetAccount(ctx, a.ID); err != nil {
				t.Fatal(err)
			}
			if _, _, err := st.ListTransactions(ctx, a.ID, TransactionFilter{Booked: true, Pending: true, Limit: 10}); err != nil {
				t.Fatal(err)
			}
		}
		read()
		before := Statements(st)
		if before.Run == 0 || before.Parsed == 0 {
			t.Fatalf("after the first reads: %+v, want statements run and parsed", before)
		}
		for range 30 {
			read()
		}
		after := Statements(st)
		if run := after.Run - before.Run; run < 60 {
			t.Errorf("30 reads ran %d statements, want at least 60", run)
		}
		if parsed := after.Parsed - before.Parsed; parsed != 0 {
			t.Errorf("30 reads parsed %d statements, want 0", parsed)
		}
		if got := Statements(Observed(st, func(string, time.Duration) {})); got != after {
			t.Errorf("through Observed: %+v, want %+v", got, after)
		}
		s := st.(*sqlStore)
		if s.d != sqliteDialect {
			return
		}
		for range 3 {
			rows, err := s.direct().QueryContext(ctx, `SELECT id FROM accounts WHERE id IN ($1, $2)`, a.ID, "x")
			if err != nil {
				t.Fatal(err)
			}
			rows.Close()
		}
		if parsed := Statements(st).Parsed - after.Parsed; parsed != 3 {
			t.Errorf("3 statements run without the cache: %d parsed, want 3", parsed)
		}
	})
}

// TestStatementsOfAnotherStore: a Store that is not one of Open's has no
// counts.
func TestStatementsOfAnotherStore(t *testing.T) {
	if got := Statements(nil); got != (StatementCounts{}) {
		t.Errorf("Statements(nil) = %+v", got)
	}
}
