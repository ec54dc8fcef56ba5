package store

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestWritersTakeTurns: many concurrent writers on one SQLite store all
// land, each in its turn, and a writer whose context ends while it waits
// gets ErrUnavailable rather than waiting on.
func TestWritersTakeTurns(t *testing.T) {
	st, err := Open(ctx, filepath.Join(t.TempDir(), "obgw.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := st.(*sqlStore)
	if s.writers == nil {
		t.Fatal("a SQLite store without a writers' turn")
	}
	c := mustCustomer(t, s, "01017012345", CustomerPrivate)
	a := mustAccount(t, s, c.ID, "NO9312345678903")
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				errs <- s.AddTransactions(ctx, a.ID, []Transaction{{Booked: true, Amount: -1, Currency: "NOK", BookingDate: "2025-01-10"}})
			} else {
				errs <- s.CreateSCAFlow(ctx, &SCAFlow{TPP: "PSDNO-FSA-1", TPPSessionID: "s", RedirectURI: "https://tpp.example/cb",
					Purpose: "consent", CSRF: "t", ExpiresAt: time.Now().Add(time.Minute)})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("a concurrent write failed: %v", err)
		}
	}
	_, total, err := s.ListTransactions(ctx, a.ID, TransactionFilter{Booked: true, Limit: 1})
	if err != nil || total != 32 {
		t.Fatalf("%d booked after 32 concurrent batches (%v)", total, err)
	}
	// Hold the turn; a writer whose context ends meanwhile gives up.
	done, err := s.writers.take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	err = s.AddTransactions(short, a.ID, []Transaction{{Booked: true, Amount: -1, Currency: "NOK", BookingDate: "2025-01-10"}})
	done()
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("a writer whose context ended while waiting: %v, want ErrUnavailable", err)
	}
}
