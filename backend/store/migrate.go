package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"hash/fnv"
)

// migration is one versioned step of the schema. Applied steps are recorded
// in schema_migrations and never run again; a step is never edited once
// released, a new one is appended instead.
type migration struct {
	// version orders the steps; it is recorded once applied.
	version int64
	// name says what the step does.
	name string
	// stmts are run in order in one transaction; {{instant}} is replaced by
	// the dialect's instant column type.
	stmts []string
	// sqlite and postgres, when set, run after stmts on that engine only,
	// for what the engines spell differently (a constraint SQLite cannot
	// drop without rebuilding the table).
	sqlite, postgres []string
	// sqliteRebuild runs the step on SQLite with foreign keys off, for a
	// step that rebuilds a table others reference (migrateRebuild).
	sqliteRebuild bool
	// then, when set, runs in the same transaction after the statements,
	// for a step that rewrites rows with Go code.
	then func(ctx context.Context, tx *sql.Tx) error
}

// migrate applies the migrations not yet recorded, each in its own
// transaction. Concurrent Opens take turns: SQLite's BEGIN IMMEDIATE holds
// the database's write lock, PostgreSQL takes a transaction-scoped advisory
// lock keyed by the schema, and each step re-checks schema_migrations under
// that lock, so exactly one process applies each step.
func (s *sqlStore) migrate(ctx context.Context, schema string) error {
	for i := range migrations {
		m := &migrations[i]
		var err error
		if m.sqliteRebuild && s.d == sqliteDialect && !s.applied(ctx, m) {
			err = s.migrateRebuild(ctx, m)
		} else {
			err = s.inTx(ctx, "migrate", func(tx *sql.Tx) error {
				return s.applyMigration(ctx, tx, schema, m)
			})
		}
		if err != nil {
			return fmt.Errorf("migration %d (%s): %w", m.version, m.name, err)
		}
	}
	return nil
}

// migrateRebuild applies a step that rebuilds a table on SQLite the way
// its documentation prescribes (https://sqlite.org/lang_altertable.html,
// "making other kinds of table schema changes"): with foreign keys on,
// dropping the old table would cascade into every table referencing it.
// Foreign keys cannot be switched inside a transaction, so the step runs
// on one connection with them off, checks with foreign_key_check that
// every reference still holds before it commits, and turns them on again.
func (s *sqlStore) migrateRebuild(ctx context.Context, m *migration) error {
	done, err := s.writers.take(ctx)
	if err != nil {
		return err
	}
	defer done()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
		return err
	}
	defer func() {
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA foreign_keys = ON`); err != nil {
			// Never back to the pool without its foreign keys.
			conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := s.applyMigration(ctx, tx, "", m); err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, `PRAGMA foreign_key_check`)
	if err != nil {
		return err
	}
	broken := rows.Next()
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if broken {
		return errors.New("a reference no longer holds after the rebuild (foreign_key_check)")
	}
	return tx.Commit()
}

// applied reports whether schema_migrations records m, read outside a
// transaction: the rebuild of a step already applied is not tried again
// at every open (applyMigration checks again under the write lock, so an
// error or a race here only costs a rebuild attempt that does nothing).
func (s *sqlStore) applied(ctx context.Context, m *migration) bool {
	var one int
	return s.db.QueryRowContext(ctx, `SELECT 1 FROM schema_migrations WHERE version = $1`, m.version).Scan(&one) == nil
}

// applyMigration runs m in tx unless schema_migrations says it ran already.
func (s *sqlStore) applyMigration(ctx context.Context, tx *sql.Tx, schema string, m *migration) error {
	if s.d == postgresDialect {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLockKey(schema)); err != nil {
			return err
		}
		if schema != "" {
			// validSchema vetted the name, so it needs no quoting.
			if _, err := tx.ExecContext(ctx, `CREATE SCHEMA IF NOT EXISTS `+schema); err != nil {
				return err
			}
		}
	}
	if _, err := tx.ExecContext(ctx, s.d.ddl(`CREATE TABLE IF NOT EXISTS schema_migrations (
		version BIGINT PRIMARY KEY,
		name TEXT NOT NULL,
		applied_at {{instant}} NOT NULL
	)`)); err != nil {
		return err
	}
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM schema_migrations WHERE version = $1`, m.version).Scan(&one)
	if err == nil {
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	stmts := m.stmts
	if s.d == postgresDialect {
		stmts = append(stmts[:len(stmts):len(stmts)], m.postgres...)
	} else {
		stmts = append(stmts[:len(stmts):len(stmts)], m.sqlite...)
	}
	for _, stmt := range stmts {
		if _, err := tx.ExecContext(ctx, s.d.ddl(stmt)); err != nil {
			return err
		}
	}
	if m.then != nil {
		if err := m.then(ctx, tx); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
		m.version, m.name, s.d.instant(s.now()))
	return err
}

// migrationLockKey is the PostgreSQL advisory lock that serialises
// migrations of one schema (different schemas migrate in parallel).
func migrationLockKey(schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte("obgw/backend/store migrate:" + schema))
	return int64(h.Sum64())
}
