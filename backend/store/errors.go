package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// fail classifies err from operation op into the package's errors:
// ErrNotFound for missing rows and missing referenced rows (foreign keys),
// ErrConflict for unique violations, ErrUnavailable for failures to reach the
// database (connection, timeout, lock, closed store). Errors already
// classified pass through; anything else is wrapped with op.
func (s *sqlStore) fail(op string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrConflict),
		errors.Is(err, ErrUnavailable), errors.Is(err, ErrInvalid):
		return err
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("%w: %s", ErrNotFound, op)
	case s.closed.Load():
		return fmt.Errorf("%w: %s: %v", ErrUnavailable, op, errClosed)
	case unavailable(err):
		return fmt.Errorf("%w: %s: %v", ErrUnavailable, op, err)
	}
	switch constraint(err) {
	case uniqueViolation:
		return fmt.Errorf("%w: %s: %v", ErrConflict, op, err)
	case foreignKeyViolation:
		return fmt.Errorf("%w: %s: a referenced customer, account or agreement does not exist", ErrNotFound, op)
	}
	return fmt.Errorf("store: %s: %w", op, err)
}

// constraintKind is the kind of integrity constraint an error violated.
type constraintKind int

// Constraint kinds fail distinguishes.
const (
	noViolation constraintKind = iota
	uniqueViolation
	foreignKeyViolation
)

// constraint tells which integrity constraint, if any, err violated.
func constraint(err error) constraintKind {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "23505": // unique_violation
			return uniqueViolation
		case "23503": // foreign_key_violation
			return foreignKeyViolation
		}
		return noViolation
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return uniqueViolation
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return foreignKeyViolation
		}
	}
	return noViolation
}

// unavailable reports whether err means the database could not be reached
// or could not serve in time, as opposed to refusing the request.
func unavailable(err error) bool {
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case len(pe.Code) == 5 && pe.Code[:2] == "08": // connection_exception
			return true
		case len(pe.Code) == 5 && pe.Code[:2] == "53": // insufficient_resources
			return true
		}
		switch pe.Code {
		case "57P01", "57P02", "57P03", // admin_shutdown, crash_shutdown, cannot_connect_now
			"40001", "40P01", // serialization_failure, deadlock_detected: retry later
			"25006", // read_only_sql_transaction: a standby after failover
			"55P03": // lock_not_available
			return true
		}
		return false
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || pgconn.Timeout(err) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_NOMEM,
			sqlite3.SQLITE_READONLY, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL,
			sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PROTOCOL:
			return true
		}
	}
	return false
}
