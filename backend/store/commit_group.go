package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Shared is st.Atomically for a write that may share its commit with
// other writers' (payment creation): fn's statements are all or nothing,
// as in Atomically, and Shared returns only after they committed, or
// failed. On SQLite, writers that arrive while another holds the turn to
// write queue up, and the next turn runs all of them in one transaction,
// each under a savepoint of its own: one writer's failure rolls back its
// own statements only, and one commit (one sync of the log) serves them
// all. On PostgreSQL, whose concurrent commits share their log flushes
// already, and on any other Store, it is st.Atomically.
//
// fn runs on another writer's goroutine when it joins a group. The
// statements it runs through the view's single-statement operations run to
// their end once begun, even if ctx is done meanwhile: a statement
// interrupted inside a transaction can end the whole of it. (The store's
// own multi-statement writes, such as a consent with its accounts, keep
// their context; if one is interrupted, the group fails whole, and every
// writer of it is told so.) A writer whose ctx ends while it is queued
// leaves the queue and fails; one whose ctx ended before its group began
// runs nothing and fails. If the group's transaction fails, every writer
// of it fails with that error, whatever its own fn met: nothing of the
// group is stored.
func Shared(ctx context.Context, st Transactor, fn func(Store) error) error {
	switch s := st.(type) {
	case observed:
		defer s.took("Atomically", time.Now())
		return Shared(ctx, s.st, func(view Store) error {
			return fn(observed{st: view, observe: s.observe})
		})
	case *sqlStore:
		if s.group != nil && s.tx == nil {
			return s.group.write(ctx, s, fn)
		}
	}
	return st.Atomically(ctx, fn)
}

// CommitCounts says how many transactions Shared has committed on a store
// since it was opened, and how many writers' statements they held.
type CommitCounts struct {
	Commits, Writes uint64
}

// Commits returns st's CommitCounts: zero for a store whose Shared is
// Atomically (PostgreSQL, or a store that is not one of Open's).
func Commits(st Store) CommitCounts {
	switch s := st.(type) {
	case observed:
		return Commits(s.st)
	case *sqlStore:
		if s.group != nil {
			return CommitCounts{Commits: s.group.commits.Load(), Writes: s.group.writes.Load()}
		}
	}
	return CommitCounts{}
}

// commitGroup queues a SQLite store's Shared writers. The first writer to
// find no group forming leads: it waits for the turn to write, takes every
// writer queued by then, runs them in one transaction and commits, tells
// each its outcome, and hands the lead to the first writer queued after.
type commitGroup struct {
	mu      sync.Mutex
	queue   []*sharedWrite
	leading bool // a leader is forming or running a group

	commits, writes atomic.Uint64
}

// sharedWrite is one Shared call.
type sharedWrite struct {
	ctx context.Context
	fn  func(Store) error
	// state, under the group's mu, is where the write stands: queued (it
	// may still leave), taken into a group, or chosen to lead one.
	state writeState
	// err is fn's outcome, or the commit's; panicked is what fn panicked
	// with, raised again on the writer's own goroutine.
	err      error
	panicked any
	marks    txMarks
	// done receives true when the write is over, false when its writer is
	// to lead the next group. It receives at most one value.
	done chan bool
}

// writeState is where a sharedWrite stands.
type writeState int

const (
	queued writeState = iota
	taken
	chosen
)

// savepoint is the name each writer's statements run under in a group.
const savepoint = "obgw_shared"

// write queues fn and waits for its outcome, leading a group when no
// other writer does. A writer still queued when its ctx ends, or after
// writerWait (a group that does not end), leaves the queue and fails;
// once taken into a group, or chosen to lead one, it waits for that.
func (g *commitGroup) write(ctx context.Context, s *sqlStore, fn func(Store) error) error {
	if s.closed.Load() {
		return s.fail("shared update", errClosed)
	}
	w := &sharedWrite{ctx: ctx, fn: fn, done: make(chan bool, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, w)
	lead := !g.leading
	if lead {
		g.leading, w.state = true, chosen
	}
	g.mu.Unlock()
	if lead || !g.wait(ctx, w) {
		g.lead(ctx, s)
	}
	if w.panicked != nil {
		panic(w.panicked)
	}
	return w.err
}

// wait waits for w's outcome (true) or for its turn to lead (false).
func (g *commitGroup) wait(ctx context.Context, w *sharedWrite) bool {
	timer := time.NewTimer(writerWait)
	defer timer.Stop()
	var why string
	select {
	case over := <-w.done:
		return over
	case <-ctx.Done():
		why = "the request ended: " + ctx.Err().Error()
	case <-timer.C:
		why = fmt.Sprintf("no turn to write within %s", writerWait)
	}
	g.mu.Lock()
	if w.state == queued {
		g.queue = slices.DeleteFunc(g.queue, func(q *sharedWrite) bool { return q == w })
		g.mu.Unlock()
		w.err = fmt.Errorf("%w: waiting for a turn to write: %s", ErrUnavailable, why)
		return true
	}
	g.mu.Unlock()
	return <-w.done
}

// lead runs one group, which holds the leader's own write, and passes the
// lead on.
func (g *commitGroup) lead(ctx context.Context, s *sqlStore) {
	seen := s.heardSoFar()
	var batch []*sharedWrite
	finished := false
	defer func() {
		if !finished {
			// The leader's goroutine is unwinding (a panic outside the
			// writers' fns, or runtime.Goexit): no write of the group
			// is known to be committed, and the lead must go on.
			g.finish(batch, errors.New("store: shared update: the group's leader ended"), seen, s)
		}
	}()
	// The group's transaction is the leader's but no one request's: a
	// leader whose client left still commits the others' writes. It is
	// bounded as a turn to write is.
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writerWait)
	defer cancel()
	err := s.transact(tctx, "shared update", func(tx *sql.Tx) error {
		// The turn to write is taken: everyone queued by now joins.
		g.mu.Lock()
		batch, g.queue = g.queue, nil
		for _, w := range batch {
			w.state = taken
		}
		g.mu.Unlock()
		for _, w := range batch {
			if err := g.run(s, tx, w); err != nil {
				return err
			}
		}
		return nil
	})
	finished = true
	g.finish(batch, err, seen, s)
}

// finish tells the group's writers their outcomes (err: the group's
// transaction failed, and every write of it with it) and passes the lead
// to the first writer queued since, if any. batch is nil when the
// transaction did not begin: then every writer queued fails.
func (g *commitGroup) finish(batch []*sharedWrite, err error, seen uint64, s *sqlStore) {
	g.mu.Lock()
	if batch == nil {
		batch, g.queue = g.queue, nil
		for _, w := range batch {
			w.state = taken
		}
	}
	g.mu.Unlock()
	changed, notified, committed := false, false, 0
	for _, w := range batch {
		switch {
		case w.panicked != nil:
		case err != nil:
			// Nothing of the group is written: not even a conflict
			// with another writer's row is left to report.
			w.err = err
		case w.err == nil:
			committed++
		}
		changed = changed || w.marks.changed
		notified = notified || w.marks.notified
	}
	if committed > 0 {
		g.commits.Add(1)
		g.writes.Add(uint64(committed))
	}
	if changed {
		s.access.changed()
	}
	if notified && err == nil {
		s.echo(seen)
	}
	for _, w := range batch[min(1, len(batch)):] {
		w.done <- true
	}
	g.mu.Lock()
	if len(g.queue) == 0 {
		g.leading = false
		g.mu.Unlock()
		return
	}
	next := g.queue[0]
	next.state = chosen
	g.mu.Unlock()
	next.done <- false
}

// run runs w's fn under a savepoint of tx, rolling back to it when fn
// fails. It returns an error only when the transaction itself cannot go
// on; w's own failure is in w.err.
func (g *commitGroup) run(s *sqlStore, tx *sql.Tx, w *sharedWrite) error {
	if err := w.ctx.Err(); err != nil {
		w.err = fmt.Errorf("%w: the request ended before its turn to write: %v", ErrUnavailable, err)
		return nil
	}
	bg := context.Background()
	if _, err := tx.ExecContext(bg, "SAVEPOINT "+savepoint); err != nil {
		w.err = s.fail("shared update", err)
		return err
	}
	w.panicked, w.err = runShared(w.fn, s.view(tx, &w.marks, true))
	if w.err == nil && w.panicked == nil {
		_, err := tx.ExecContext(bg, "RELEASE "+savepoint)
		if err != nil {
			w.err = s.fail("shared update", err)
		}
		return err
	}
	if w.err != nil {
		w.err = s.fail("shared update", w.err)
	}
	if _, err := tx.ExecContext(bg, "ROLLBACK TO "+savepoint); err != nil {
		return err // the transaction is gone: every write of the group fails
	}
	_, err := tx.ExecContext(bg, "RELEASE "+savepoint)
	return err
}

// runShared calls fn on view, catching a panic to raise it again on its
// writer's goroutine.
func runShared(fn func(Store) error, view Store) (panicked any, err error) {
	defer func() {
		if p := recover(); p != nil {
			panicked = p
		}
	}()
	return nil, fn(view)
}
