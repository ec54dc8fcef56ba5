package store

import (
	"context"
	"database/sql"
	"sort"
	"sync/atomic"
	"time"
)

// sqlStore is the Store over database/sql, on SQLite or PostgreSQL.
type sqlStore struct {
	// db is the connection pool.
	db *sql.DB
	// q runs statements: &queries, which traces them (tracing.go) and
	// runs them on the pool (through prepared on SQLite) or on the
	// transaction of an Atomically view.
	q querier
	// queries and plainQueries are q's and direct()'s tracing wrappers.
	queries, plainQueries tracedQuerier
	// prepared keeps the pool's prepared statements (SQLite); nil otherwise.
	prepared *preparedDB
	// counts counts the statements run and parsed (statement_counts.go).
	counts *statementCounter
	// writers orders this process's writers (SQLite); nil otherwise.
	writers writerTurn
	// tx is the transaction of an Atomically view; nil otherwise.
	tx *sql.Tx
	// d is the engine's dialect.
	d *dialect
	// now is the clock.
	now func() time.Time
	// closed is set by Close, so later calls fail with ErrUnavailable.
	closed atomic.Bool
	// checkpoints copies a file-backed SQLite store's write-ahead log in
	// the background; nil otherwise.
	checkpoints *walCheckpointer
	// access keeps ResolveAccess's answers (access_cache.go); shared by
	// the store and its views.
	access *accessCache
	// listener moves access's generation on other processes' changes
	// (PostgreSQL); nil otherwise.
	listener *accessListener
	// dataVersion reads a SQLite file's data version for access; nil
	// otherwise.
	dataVersion *sqliteDataVersion
	// marks, in an Atomically view, say whether the transaction may have
	// changed what ResolveAccess answers; nil otherwise.
	marks *txMarks
	// group queues Shared's writers (SQLite); nil otherwise.
	group *commitGroup
	// detached, in a view of a shared transaction, runs every statement to
	// its end whatever its context (commit_group.go).
	detached bool
}

// txMarks are what an Atomically transaction did to the tables
// ResolveAccess reads: changed, it may have (the cache's generation moves
// after its commit); notified, a statement known to change them ran, so
// PostgreSQL will send a notice of the commit (and the writer waits for
// it: accessListener.echo).
type txMarks struct {
	changed, notified bool
}

// heardSoFar is the listener's count of notices, taken before a change
// for echo; 0 without a listener.
func (s *sqlStore) heardSoFar() uint64 {
	if s.listener == nil {
		return 0
	}
	return s.listener.heardSoFar()
}

// echo waits for the notice of a change committed after seen was taken
// (PostgreSQL; nothing to wait for on SQLite).
func (s *sqlStore) echo(seen uint64) {
	if s.listener != nil {
		s.listener.echo(seen)
	}
}

// notifyingOps are the transactions of inTx that write a table
// ResolveAccess reads, whose commit PostgreSQL's triggers announce.
var notifyingOps = map[string]bool{"create consent": true, "complete session": true, "delete sandbox": true}

var _ Store = (*sqlStore)(nil)

// querier is what *sql.DB and *sql.Tx have in common.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// direct runs statements without the statement cache (prepared.go): for
// texts built per call (IN lists of n placeholders), which would fill it.
func (s *sqlStore) direct() querier {
	return &s.plainQueries
}

// Close releases the database. Closing an Atomically view does nothing.
func (s *sqlStore) Close() error {
	if s.tx != nil {
		return nil
	}
	if s.closed.Swap(true) {
		return nil
	}
	if s.checkpoints != nil {
		s.checkpoints.Stop()
	}
	if s.listener != nil {
		s.listener.Stop()
	}
	if s.dataVersion != nil {
		s.dataVersion.Close()
	}
	if s.prepared != nil {
		s.prepared.Close()
	}
	return s.db.Close()
}

// Atomically runs fn against a view of the store inside one database
// transaction, committing only if fn returns nil: everything fn writes
// lands together or not at all, and other writers wait (SQLite) or see
// nothing of it until the commit (PostgreSQL).
func (s *sqlStore) Atomically(ctx context.Context, fn func(Store) error) error {
	if s.tx != nil {
		return fn(s) // already inside
	}
	var marks txMarks
	seen := s.heardSoFar()
	err := s.transact(ctx, "atomic update", func(tx *sql.Tx) error {
		return fn(s.view(tx, &marks, false))
	})
	if marks.changed {
		// After the commit: answers read before it are out of force.
		s.access.changed()
	}
	if marks.notified && err == nil {
		s.echo(seen)
	}
	return err
}

// view is the store as seen inside transaction tx: its statements run on
// tx (through the prepared statements on SQLite), and what they may change
// of ResolveAccess's answers is marked in marks. detached runs each of them
// to its end whatever its context (a shared transaction's, commit_group.go).
func (s *sqlStore) view(tx *sql.Tx, marks *txMarks, detached bool) *sqlStore {
	v := &sqlStore{db: s.db, tx: tx, d: s.d, now: s.now, writers: s.writers, prepared: s.prepared, counts: s.counts,
		access: s.access, listener: s.listener, marks: marks, detached: detached}
	var q querier = tx
	if s.prepared != nil {
		q = preparedTx{tx: tx, p: s.prepared}
	}
	v.traceQueries(q, tx)
	return v
}

// Ping checks that the database answers.
func (s *sqlStore) Ping(ctx context.Context) error {
	if s.closed.Load() {
		return s.fail("ping", errClosed)
	}
	return s.fail("ping", s.db.PingContext(ctx))
}

// LockAccounts locks the accounts' rows until the surrounding Atomically
// transaction ends, in id order so two transactions locking the same
// accounts cannot deadlock. Balance read-modify-writes (payments, mock
// transactions) take it first, so concurrent ones never lose an update or
// overdraw. Outside Atomically it only checks the accounts exist.
func (s *sqlStore) LockAccounts(ctx context.Context, ids ...string) error {
	sorted := append([]string(nil), ids...)
	sort.Strings(sorted)
	for i, id := range sorted {
		if i > 0 && id == sorted[i-1] {
			continue
		}
		var got string
		if err := s.q.QueryRowContext(ctx, s.d.lockAccount, id).Scan(&got); err != nil {
			return s.fail("lock account", err)
		}
	}
	return nil
}

// stamp is the current time as stored: UTC, microseconds.
func (s *sqlStore) stamp() time.Time {
	return s.now().UTC().Truncate(time.Microsecond)
}

// inTx runs fn in a transaction, committing when it returns nil. Errors are
// classified with op. fn's statements are not seen one by one, so the
// access cache counts any such transaction as a change.
func (s *sqlStore) inTx(ctx context.Context, op string, fn func(*sql.Tx) error) error {
	if s.tx != nil {
		// Inside an Atomically view: the outer transaction commits.
		s.marks.changed = true
		s.marks.notified = s.marks.notified || notifyingOps[op]
		return s.fail(op, fn(s.tx))
	}
	seen := s.heardSoFar()
	err := s.transact(ctx, op, fn)
	s.access.changed()
	if err == nil && notifyingOps[op] {
		s.echo(seen)
	}
	return err
}

// transact is inTx outside a view.
func (s *sqlStore) transact(ctx context.Context, op string, fn func(*sql.Tx) error) error {
	if s.closed.Load() {
		return s.fail(op, errClosed)
	}
	span := s.startTx(ctx, op)
	err := s.runTx(ctx, fn)
	endSpan(span, err)
	return s.fail(op, err)
}

// runTx is inTx outside a view: it waits for the turn to write, begins,
// runs fn and commits.
func (s *sqlStore) runTx(ctx context.Context, fn func(*sql.Tx) error) error {
	done, err := s.writers.take(ctx)
	if err != nil {
		return err
	}
	defer done()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	ended := false
	defer func() {
		// fn panicked (or its goroutine exited): no transaction is left
		// open, holding its locks and its connection until its context
		// ends, which a shared transaction's never does.
		if !ended {
			tx.Rollback()
		}
	}()
	err = fn(tx)
	ended = true
	if err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// exec runs one statement outside a transaction and returns the number of
// rows it changed.
func (s *sqlStore) exec(ctx context.Context, op, query string, args ...any) (int64, error) {
	if s.tx == nil {
		done, err := s.writers.take(ctx)
		if err != nil {
			return 0, s.fail(op, err)
		}
		defer done()
	}
	res, err := s.q.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, s.fail(op, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, s.fail(op, err)
	}
	return n, nil
}

// placeholders returns "$from, $from+1, ..." for n parameters.
func placeholders(from, n int) string {
	b := make([]byte, 0, n*5)
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '$')
		b = appendInt(b, from+i)
	}
	return string(b)
}

// appendInt appends the decimal form of a non-negative n.
func appendInt(b []byte, n int) []byte {
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}
