package store

import (
	"context"
	"database/sql"
	"sync/atomic"
	"time"
)

// sqlStore is the Store over database/sql, on SQLite or PostgreSQL.
type sqlStore struct {
	// db is the connection pool.
	db *sql.DB
	// d is the engine's dialect.
	d *dialect
	// now is the clock.
	now func() time.Time
	// closed is set by Close, so later calls fail with ErrUnavailable.
	closed atomic.Bool
}

var _ Store = (*sqlStore)(nil)

// Close releases the database.
func (s *sqlStore) Close() error {
	s.closed.Store(true)
	return s.db.Close()
}

// stamp is the current time as stored: UTC, microseconds.
func (s *sqlStore) stamp() time.Time {
	return s.now().UTC().Truncate(time.Microsecond)
}

// inTx runs fn in a transaction, committing when it returns nil. Errors are
// classified with op.
func (s *sqlStore) inTx(ctx context.Context, op string, fn func(*sql.Tx) error) error {
	if s.closed.Load() {
		return s.fail(op, errClosed)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.fail(op, err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return s.fail(op, err)
	}
	if err := tx.Commit(); err != nil {
		return s.fail(op, err)
	}
	return nil
}

// exec runs one statement outside a transaction and returns the number of
// rows it changed.
func (s *sqlStore) exec(ctx context.Context, op, query string, args ...any) (int64, error) {
	res, err := s.db.ExecContext(ctx, query, args...)
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
