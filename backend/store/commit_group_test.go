package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// sharedPayment is a payment of tpp's request id, as payment creation
// stores one.
func sharedPayment(tpp, id string) *Payment {
	return &Payment{TPP: tpp, RequestID: id, Kind: PaymentSingle, Product: "domestic-norway-credit-transfers", Amount: 1,
		Currency: "NOK", ExecutionDate: "2026-11-01", Body: []byte(`{}`), Status: "RCVD"}
}

// createWithFlow is payment creation's write: the payment and its SCA
// flow.
func createWithFlow(tx Store, p *Payment) error {
	if err := tx.CreatePayment(ctx, p); err != nil {
		return err
	}
	return tx.CreateSCAFlow(ctx, &SCAFlow{TPP: p.TPP, Purpose: "payment", ResourceID: p.ID})
}

// queued is the number of writers waiting in s's commit group.
func queueLen(s Store) int {
	g := s.(*sqlStore).group
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.queue)
}

// TestSharedWritesKeepTheirFailuresApart: twelve concurrent Shared writes
// of a payment and its SCA flow, on SQLite all queued behind a writer
// holding the turn, so that one transaction runs them. Those whose fn
// fails after writing, that conflict with a stored payment, that panic or
// whose request ended before their turn leave nothing; every other one
// is stored whole, and another Store on the same database reads it as
// soon as Shared has returned (nothing is acknowledged before its
// commit). On SQLite one commit served the group; on PostgreSQL Shared is
// Atomically.
func TestSharedWritesKeepTheirFailuresApart(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s, other := db.open(t), db.open(t)
		const tpp = "PSDNO-FSA-SHARED"
		wantErr(t, "the stored payment", s.CreatePayment(ctx, sharedPayment(tpp, "taken")), nil)
		sqlite := s.(*sqlStore).group != nil
		var release func()
		if sqlite {
			done, err := s.(*sqlStore).writers.take(ctx)
			if err != nil {
				t.Fatal(err)
			}
			release = done
		}
		boom := errors.New("boom")
		const n = 12
		type outcome struct {
			err      error
			panicked any
		}
		results := make([]outcome, n)
		// The writers whose request ends (i%6 == 4) come once the others
		// are queued, and cancel while they wait: on SQLite they leave
		// the queue, the group goes on without them.
		later := make(chan struct{})
		var wg, ended sync.WaitGroup
		for i := range n {
			wait := &wg
			if i%6 == 4 {
				wait = &ended
			}
			wait.Go(func() {
				defer func() { results[i].panicked = recover() }()
				wctx := ctx
				if i%6 == 4 {
					<-later
					c, cancel := context.WithCancel(ctx)
					wctx = c
					if sqlite {
						time.AfterFunc(20*time.Millisecond, cancel) // ends while queued behind the held turn
					} else {
						defer cancel()
					}
				}
				results[i].err = Shared(wctx, s, func(tx Store) error {
					p := sharedPayment(tpp, fmt.Sprint("r", i))
					switch i % 6 {
					case 1:
						if err := createWithFlow(tx, p); err != nil {
							return err
						}
						return boom
					case 2:
						if err := createWithFlow(tx, p); err != nil {
							return err
						}
						return createWithFlow(tx, sharedPayment(tpp, "taken"))
					case 3:
						if err := createWithFlow(tx, p); err != nil {
							return err
						}
						panic("writer panics")
					}
					return createWithFlow(tx, p)
				})
				if results[i].err == nil {
					// Acknowledged: committed, for every instance.
					if _, err := other.GetPaymentByRequest(ctx, tpp, fmt.Sprint("r", i)); err != nil {
						t.Errorf("writer %d: Shared returned, another store does not find its payment: %v", i, err)
					}
				}
			})
		}
		if sqlite {
			for deadline := time.Now().Add(10 * time.Second); queueLen(s) < n-2; time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("%d of %d writers queued", queueLen(s), n-2)
				}
			}
			close(later)
			ended.Wait()
			if got := queueLen(s); got != n-2 {
				t.Fatalf("%d writers queued once the ended ones left, want %d", got, n-2)
			}
			release()
		} else {
			close(later)
		}
		wg.Wait()
		ended.Wait()
		committed := 0
		for i, r := range results {
			_, err := other.GetPaymentByRequest(ctx, tpp, fmt.Sprint("r", i))
			switch i % 6 {
			case 1:
				wantErr(t, fmt.Sprint("writer ", i, ", failing"), r.err, boom)
			case 2:
				wantErr(t, fmt.Sprint("writer ", i, ", conflicting"), r.err, ErrConflict)
			case 3:
				if r.panicked != "writer panics" {
					t.Errorf("writer %d: panicked with %v on its own goroutine", i, r.panicked)
				}
			case 4:
				if sqlite {
					wantErr(t, fmt.Sprint("writer ", i, ", ended"), r.err, ErrUnavailable)
				} else {
					wantErr(t, fmt.Sprint("writer ", i), r.err, nil)
				}
			default:
				wantErr(t, fmt.Sprint("writer ", i), r.err, nil)
			}
			stored := err == nil
			if want := r.err == nil && r.panicked == nil; stored != want {
				t.Errorf("writer %d (%v, panic %v): stored %v", i, r.err, r.panicked, stored)
			}
			if stored {
				committed++
			}
		}
		if want := map[bool]int{true: 4, false: 6}[sqlite]; committed != want {
			t.Fatalf("%d payments stored", committed)
		}
		// The flows of the failed writes went with them.
		var flows int
		if err := s.(*sqlStore).db.QueryRow(`SELECT count(*) FROM sca_flows WHERE tpp = $1`, tpp).Scan(&flows); err != nil {
			t.Fatal(err)
		}
		if flows != committed {
			t.Fatalf("%d SCA flows for %d payments", flows, committed)
		}
		got := Commits(s)
		if sqlite && (got.Commits != 1 || got.Writes != uint64(committed)) {
			t.Fatalf("SQLite: %+v, want one commit of %d writes", got, committed)
		}
		if !sqlite && got != (CommitCounts{}) {
			t.Fatalf("PostgreSQL: %+v, want none counted (Shared is Atomically)", got)
		}
	})
}

// TestSharedWritersTakeTurnsLeading: writers arriving in waves while
// groups commit all finish, each group led by a writer of its own, and
// every write lands once.
func TestSharedWritersTakeTurnsLeading(t *testing.T) {
	s := sqliteTestDB(t, tickClock()).open(t)
	const tpp, n = "PSDNO-FSA-WAVES", 200
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if i%20 == 0 {
				time.Sleep(time.Duration(i/20) * time.Millisecond)
			}
			if err := Shared(ctx, s, func(tx Store) error { return createWithFlow(tx, sharedPayment(tpp, fmt.Sprint("w", i))) }); err != nil {
				t.Errorf("writer %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	got := Commits(s)
	if got.Writes != n || got.Commits == 0 || got.Commits > n {
		t.Fatalf("%+v for %d writes", got, n)
	}
	t.Logf("%d writes in %d commits", got.Writes, got.Commits)
	var stored int
	if err := s.(*sqlStore).db.QueryRow(`SELECT count(*) FROM payments WHERE tpp = $1`, tpp).Scan(&stored); err != nil || stored != n {
		t.Fatalf("%d payments stored, %v", stored, err)
	}
	if queueLen(s) != 0 || s.(*sqlStore).group.leading {
		t.Fatal("a group is left forming")
	}
}

// TestSharedLeadPassesOn: writers that queue while a group runs form the
// next group, led by one of them: two commits, every write stored.
func TestSharedLeadPassesOn(t *testing.T) {
	s := sqliteTestDB(t, tickClock()).open(t)
	const tpp, more = "PSDNO-FSA-NEXT", 5
	running, goOn := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		err := Shared(ctx, s, func(tx Store) error {
			close(running)
			<-goOn // the first group holds until the next has queued
			return createWithFlow(tx, sharedPayment(tpp, "first"))
		})
		wantErr(t, "the first group's writer", err, nil)
	})
	<-running
	for i := range more {
		wg.Go(func() {
			wantErr(t, fmt.Sprint("writer ", i), Shared(ctx, s, func(tx Store) error {
				return createWithFlow(tx, sharedPayment(tpp, fmt.Sprint("next", i)))
			}), nil)
		})
	}
	for deadline := time.Now().Add(10 * time.Second); queueLen(s) < more; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d writers queued", queueLen(s), more)
		}
	}
	close(goOn)
	wg.Wait()
	if got := Commits(s); got != (CommitCounts{Commits: 2, Writes: more + 1}) {
		t.Fatalf("%+v, want 2 commits of %d writes", got, more+1)
	}
}

// TestSharedGroupFailsWhole: when the group's transaction breaks part
// way (here a writer's statement ends it), every writer of the group
// fails with the group's error, even one that had met a conflict with a
// row the group wrote, and nothing of the group is stored.
func TestSharedGroupFailsWhole(t *testing.T) {
	s := sqliteTestDB(t, tickClock()).open(t)
	const tpp = "PSDNO-FSA-BROKEN"
	release, err := s.(*sqlStore).writers.take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fns := []func(Store) error{
		func(tx Store) error { return createWithFlow(tx, sharedPayment(tpp, "same")) },
		func(tx Store) error { return createWithFlow(tx, sharedPayment(tpp, "same")) }, // conflicts with the first
		func(tx Store) error {
			_, err := tx.(*sqlStore).q.ExecContext(ctx, `ROLLBACK`) // ends the group's transaction
			return err
		},
		func(tx Store) error { return createWithFlow(tx, sharedPayment(tpp, "after")) },
	}
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Go(func() { errs[i] = Shared(ctx, s, fn) })
		for deadline := time.Now().Add(10 * time.Second); queueLen(s) < i+1; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("writers did not queue")
			}
		}
	}
	release()
	wg.Wait()
	for i, err := range errs {
		if err == nil || errors.Is(err, ErrConflict) {
			t.Errorf("writer %d: %v, want the group's failure", i, err)
		}
	}
	var stored int
	if err := s.(*sqlStore).db.QueryRow(`SELECT count(*) FROM payments WHERE tpp = $1`, tpp).Scan(&stored); err != nil || stored != 0 {
		t.Fatalf("%d payments of a failed group stored (%v)", stored, err)
	}
	if got := Commits(s); got != (CommitCounts{}) {
		t.Fatalf("%+v counted for a failed group", got)
	}
	// The store goes on.
	wantErr(t, "a write after", Shared(ctx, s, func(tx Store) error { return createWithFlow(tx, sharedPayment(tpp, "later")) }), nil)
}

// TestSharedFailsWholeWithoutATransaction: when the group's transaction
// cannot begin (the store closed while the writers waited for their
// turn), the leader and every writer queued behind it fail, none is left
// waiting, and a later writer fails at once.
func TestSharedFailsWholeWithoutATransaction(t *testing.T) {
	s := sqliteTestDB(t, tickClock()).open(t)
	release, err := s.(*sqlStore).writers.take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const n = 4
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			errs[i] = Shared(ctx, s, func(tx Store) error { return createWithFlow(tx, sharedPayment("x", fmt.Sprint(i))) })
		})
	}
	for deadline := time.Now().Add(10 * time.Second); queueLen(s) < n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d writers queued", queueLen(s), n)
		}
	}
	s.Close()
	release()
	wg.Wait()
	for i, err := range errs {
		wantErr(t, fmt.Sprint("writer ", i), err, ErrUnavailable)
	}
	if queueLen(s) != 0 || s.(*sqlStore).group.leading {
		t.Fatal("a group is left forming")
	}
	wantErr(t, "Shared after Close", Shared(ctx, s, func(Store) error { return nil }), ErrUnavailable)
}

// TestSQLiteCommitsAreDurable: a file store syncs its log at every
// commit (synchronous FULL), so a write acknowledged survives a power
// loss, not only a crash of obgw.
func TestSQLiteCommitsAreDurable(t *testing.T) {
	pragmaOnEveryConnection(t, "synchronous", 2, "FULL")
}

// pragmaOnEveryConnection fails unless PRAGMA name reads want on four
// connections of a SQLite store's pool held at once (so every one of them,
// not one reused).
func pragmaOnEveryConnection(t *testing.T, name string, want int, meaning string) {
	t.Helper()
	s := sqliteTestDB(t, tickClock()).open(t).(*sqlStore)
	conns := make([]interface{ Close() error }, 0, 4)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 4 {
		c, err := s.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		var got int
		if err := c.QueryRowContext(ctx, `PRAGMA `+name).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("PRAGMA %s is %d, want %d (%s)", name, got, want, meaning)
		}
	}
}

// TestSQLiteTempStoreInMemory: every connection of the pool keeps SQLite's
// temporary files, the savepoints' statement journals of a shared commit
// above all, in memory (PRAGMA temp_store 2), not in files written a page
// at a time and created and deleted per commit.
func TestSQLiteTempStoreInMemory(t *testing.T) {
	pragmaOnEveryConnection(t, "temp_store", 2, "MEMORY")
}

// BenchmarkPaymentCreation creates payments with their SCA flows from 32
// goroutines, through Atomically (one commit each) and through Shared:
// commits/op is the commits per payment.
func BenchmarkPaymentCreation(b *testing.B) {
	for _, how := range []string{"atomically", "shared"} {
		b.Run(how, func(b *testing.B) {
			s := sqliteTestDB(b, nil).open(b)
			var seq atomic.Int64
			b.SetParallelism(16) // 32 on 2 cores
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					p := sharedPayment("PSDNO-FSA-BENCH", fmt.Sprint("b", seq.Add(1)))
					write := func(tx Store) error { return createWithFlow(tx, p) }
					var err error
					if how == "shared" {
						err = Shared(ctx, s, write)
					} else {
						err = s.Atomically(ctx, write)
					}
					if err != nil {
						b.Error(err)
						return
					}
				}
			})
			if how == "shared" {
				c := Commits(s)
				b.ReportMetric(float64(c.Commits)/float64(c.Writes), "commits/op")
			} else {
				b.ReportMetric(1, "commits/op")
			}
		})
	}
}
