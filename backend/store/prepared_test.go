package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStatementsPreparedOnce: on SQLite the read path's statements are
// prepared at their first use and reused after, however many requests
// follow; a statement text built per call past the bound runs unprepared.
func TestStatementsPreparedOnce(t *testing.T) {
	st, err := Open(ctx, filepath.Join(t.TempDir(), "obgw.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := st.(*sqlStore)
	c := mustCustomer(t, s, "01017012345", CustomerPrivate)
	a := mustAccount(t, s, c.ID, "NO9312345678903")
	read := func() {
		if _, err := s.GetAccount(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.ListTransactions(ctx, a.ID, TransactionFilter{Booked: true, Pending: true, Limit: 10}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ListConsents(ctx, "PSDNO-FSA-1", c.ID); err != nil {
			t.Fatal(err)
		}
	}
	read()
	first := s.prepared.prepared()
	if first == 0 {
		t.Fatal("no statement prepared")
	}
	for range 50 {
		read()
	}
	if n := s.prepared.prepared(); n != first {
		t.Errorf("%d statements prepared after 50 more reads, want the first read's %d", n, first)
	}
	// Full: a new text runs, unprepared.
	for i := s.prepared.prepared(); i < maxPrepared; i++ {
		s.prepared.stmts[string(rune('a'+i%26))+string(rune(i))] = nil
	}
	var one int
	if err := s.q.QueryRowContext(ctx, `SELECT 1 + $1`, 0).Scan(&one); err != nil || one != 1 {
		t.Fatalf("a statement past the bound: %d %v", one, err)
	}
	if n := s.prepared.prepared(); n != maxPrepared {
		t.Errorf("%d statements kept, want the bound %d", n, maxPrepared)
	}
	for q, st := range s.prepared.stmts {
		if st == nil {
			delete(s.prepared.stmts, q)
		}
	}
}

// TestPostgresNotThroughPreparedDB: pgx caches prepared statements itself.
func TestPostgresNotThroughPreparedDB(t *testing.T) {
	for _, b := range backends() {
		if b.name != "postgres" {
			continue
		}
		s := b.newDB(t, nil).open(t).(*sqlStore)
		if s.prepared != nil {
			t.Error("PostgreSQL goes through preparedDB")
		}
	}
}

// BenchmarkLimitParameter runs listBooked as shipped (LIMIT ($4 + 0)) and
// with a bare LIMIT parameter, on an empty table: the bare form is
// prepared again at every execution by SQLite 3.53 (about twice the time).
func BenchmarkLimitParameter(b *testing.B) {
	st, err := Open(ctx, filepath.Join(b.TempDir(), "obgw.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	s := st.(*sqlStore)
	c := mustCustomer(b, s, "01017012345", CustomerPrivate)
	a := mustAccount(b, s, c.ID, "NO9312345678903")
	bare := strings.Replace(listBooked, "LIMIT ($4 + 0)", "LIMIT $4", 1)
	if bare == listBooked {
		b.Fatal("listBooked has no LIMIT ($4 + 0)")
	}
	for _, v := range []struct{ name, query string }{{"shipped", listBooked}, {"bare-limit", bare}} {
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rows, err := s.q.QueryContext(ctx, v.query, a.ID, "", "", int64(10), int64(0))
				if err != nil {
					b.Fatal(err)
				}
				rows.Close()
			}
		})
	}
}

// TestPreparedInTransactionOnOneConnection: a statement first used inside
// Atomically, on a pool of one connection (:memory:), runs (it was
// prepared on the pool, which waited for the transaction's connection for
// ever).
func TestPreparedInTransactionOnOneConnection(t *testing.T) {
	st, err := Open(ctx, "sqlite::memory:", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	short, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	err = st.Atomically(short, func(tx Store) error {
		return tx.AddSealingKey(short, &SealingKey{ID: "k1", Secret: make([]byte, 32)})
	})
	if err != nil {
		t.Fatalf("a new statement inside Atomically on one connection: %v", err)
	}
	if keys, err := st.SealingKeys(ctx); err != nil || len(keys) != 1 {
		t.Fatalf("keys %v, %v", keys, err)
	}
	// Prepared on the pool in the background once the transaction let
	// go of the connection, for the transactions after it.
	p := st.(*sqlStore).prepared
	deadline := time.Now().Add(5 * time.Second)
	for {
		p.mu.RLock()
		n := 0
		for q := range p.stmts {
			if strings.HasPrefix(q, "INSERT INTO sealing_keys") {
				n++
			}
		}
		p.mu.RUnlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the statement met inside the transaction was never prepared on the pool")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
