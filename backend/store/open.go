package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// DefaultSQLitePath is the database file Open uses when given an empty URL.
const DefaultSQLitePath = "obgw.db"

// Options configure Open.
type Options struct {
	// Clock is the time source for CreatedAt etc.; nil = time.Now.
	Clock func() time.Time
	// Schema is the PostgreSQL schema to use (created if missing), so tests
	// can isolate; empty = public. Ignored by SQLite. Lower-case letters,
	// digits and underscores, starting with a letter or underscore.
	Schema string
	// MaxOpenConns bounds the connection pool; 0 = 16 (PostgreSQL) or 8
	// (SQLite, where writers take turns anyway).
	MaxOpenConns int
	// listenVia, when set, is the URL the access cache's listener
	// connects to instead (tests cut it through a proxy).
	listenVia string
}

// sqliteParams are appended to every SQLite location: WAL so readers do not
// block the writer, a busy timeout so a writer waits for its turn rather than
// failing, foreign keys for the cascades, BEGIN IMMEDIATE so a transaction
// takes the write lock up front instead of failing with SQLITE_BUSY when it
// upgrades from reading to writing, and the automatic checkpoint moved from
// 1000 to 10000 pages: a backstop, the background checkpoints (see
// walCheckpointer) copy the log long before. synchronous FULL syncs the log
// at every commit, so what obgw acknowledged (a payment's 201) survives a
// power loss or a crash of the machine; with NORMAL, WAL's usual setting, the
// last commits before such a loss may roll back. Shared lets concurrent
// payment creations share one commit, and so one sync. temp_store MEMORY
// keeps SQLite's temporary files in memory, above all the statement
// journal of each writer's savepoint in a shared commit (the pages it
// changes, as they were, to roll back to): on a file it was two write
// calls a page, and past 64 KiB a file created and deleted per commit,
// a tenth of the CPU of a payment creation. What it holds is bounded by
// the pages one commit changes; the store's reads are index scans, whose
// sorts, if any, are of one page of results.
const sqliteParams = "_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)" +
	"&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_txlock=immediate" +
	"&_pragma=wal_autocheckpoint(10000)&_pragma=temp_store(MEMORY)"

// location is where a store lives, as parsed from Open's URL.
type location struct {
	// dialect is the engine.
	dialect *dialect
	// target is the SQLite file path (":memory:" allowed) or the
	// PostgreSQL connection URL.
	target string
}

// parseLocation reads Open's URL: "" (DefaultSQLitePath), a file path or
// "sqlite:<path>" for SQLite, "postgres://..." or "postgresql://..." for
// PostgreSQL. Any other "scheme://" is refused rather than taken for a file
// name.
func parseLocation(url string) (location, error) {
	switch {
	case url == "":
		return location{sqliteDialect, DefaultSQLitePath}, nil
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		return location{postgresDialect, url}, nil
	case strings.HasPrefix(url, "sqlite:"):
		path := strings.TrimPrefix(strings.TrimPrefix(url, "sqlite:"), "//")
		if path == "" {
			return location{}, fmt.Errorf("%w: sqlite: URL names no file; use sqlite:<path>", ErrInvalid)
		}
		url = path
	case strings.Contains(url, "://"):
		scheme, _, _ := strings.Cut(url, "://")
		if len(scheme) > 20 {
			scheme = scheme[:20]
		}
		return location{}, fmt.Errorf("%w: database scheme %q is not supported; use a file path, sqlite:<path> or postgres://", ErrInvalid, scheme)
	}
	if strings.IndexByte(url, 0) >= 0 {
		return location{}, fmt.Errorf("%w: SQLite path contains a NUL byte", ErrInvalid)
	}
	return location{sqliteDialect, url}, nil
}

// validSchema reports whether name is a plain lower-case PostgreSQL
// identifier that needs no quoting.
func validSchema(name string) bool {
	if name == "" || len(name) > 63 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c == '_':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// Open opens (and migrates) the store at url: "" or a file path or
// "sqlite:<path>" for SQLite (":memory:" works, on one connection),
// "postgres://..." or "postgresql://..." for PostgreSQL. Migrations are
// versioned and run once each, in a transaction, even when several processes
// start at once. A database that cannot be reached yields ErrUnavailable.
func Open(ctx context.Context, url string, opt Options) (Store, error) {
	loc, err := parseLocation(url)
	if err != nil {
		return nil, err
	}
	var db *sql.DB
	schema := ""
	counts := &statementCounter{}
	switch loc.dialect {
	case postgresDialect:
		schema = opt.Schema
		if db, err = openPostgres(loc.target, schema, counts); err != nil {
			return nil, err
		}
		// Every connection stays open while it is in use now and then: a
		// connection closed for want of an idle slot takes pgx's prepared
		// statements with it, and its replacement costs a TCP and
		// authentication round and prepares every statement again (half
		// the pool kept idle churned connections under load). Connections
		// idle for 5 minutes still close.
		db.SetMaxOpenConns(orDefault(opt.MaxOpenConns, 16))
		db.SetMaxIdleConns(orDefault(opt.MaxOpenConns, 16))
		db.SetConnMaxIdleTime(5 * time.Minute)
	default:
		if db, err = openSQLite(loc.target); err != nil {
			return nil, err
		}
		if isMemory(loc.target) {
			// Every connection to :memory: is a database of its own.
			db.SetMaxOpenConns(1)
		} else {
			// Every connection stays open: database/sql keeps 2 idle by
			// default, and a new SQLite connection reads the schema and
			// prepares each statement again (under load, a tenth of the
			// CPU went to that churn).
			db.SetMaxOpenConns(orDefault(opt.MaxOpenConns, 8))
			db.SetMaxIdleConns(orDefault(opt.MaxOpenConns, 8))
		}
	}
	s := &sqlStore{db: db, d: loc.dialect, now: opt.Clock, counts: counts, access: newAccessCache()}
	var q querier = db
	if loc.dialect == sqliteDialect {
		s.prepared = newPreparedDB(db, counts)
		q = s.prepared
		s.writers = newWriterTurn()
		s.group = &commitGroup{}
	}
	s.traceQueries(q, db)
	if s.now == nil {
		s.now = time.Now
	}
	if err := ping(ctx, db, loc.dialect); err != nil {
		db.Close()
		return nil, s.fail("connect", err)
	}
	if err := s.migrate(ctx, schema); err != nil {
		db.Close()
		return nil, err
	}
	if loc.dialect == sqliteDialect && !isMemory(loc.target) {
		s.checkpoints = startWALCheckpoints(db, walCheckpointInterval)
		dv, err := openSQLiteDataVersion(loc.target)
		if err != nil {
			s.Close()
			return nil, s.fail("connect", err)
		}
		s.dataVersion = dv
		s.access.fileVersion = dv.current
	}
	if loc.dialect == postgresDialect {
		target := loc.target
		if opt.listenVia != "" {
			target = opt.listenVia
		}
		s.listener = startAccessListener(target, schema, s.access)
		s.access.live = s.listener.live
	}
	return s, nil
}

// openPostgres prepares (without connecting) a pool on the PostgreSQL at
// url, with search_path set to schema when one is given, counting pgx's
// statement preparations into counts.
func openPostgres(url, schema string, counts *statementCounter) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		// pgconn redacts the password from its parse errors.
		return nil, fmt.Errorf("%w: PostgreSQL URL: %v", ErrInvalid, err)
	}
	if schema != "" {
		if !validSchema(schema) {
			return nil, fmt.Errorf("%w: schema %.70q must be lower-case letters, digits and _ (at most 63)", ErrInvalid, schema)
		}
		cfg.RuntimeParams["search_path"] = schema
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 5 * time.Second
	}
	// Every statement is planned once per connection, when pgx first
	// prepares it, not again at every execution: each of the store's
	// statements is written for an index (and takes its bounds as
	// parameters, never as an "empty means any" test a generic plan could
	// not put in an index condition). PostgreSQL's default plans a
	// prepared statement anew with its values for as long as the generic
	// plan's estimate looks dearer, which for the transactions read (a
	// LIMIT and an account of unknown size) is always: a plan per read,
	// a third of PostgreSQL's CPU under load. A plan_cache_mode in the URL
	// is the operator's and wins.
	if _, set := cfg.RuntimeParams["plan_cache_mode"]; !set {
		cfg.RuntimeParams["plan_cache_mode"] = "force_generic_plan"
	}
	cfg.Tracer = pgxParses{counts}
	return stdlib.OpenDB(*cfg), nil
}

// openSQLite prepares a pool on the SQLite file at path.
func openSQLite(path string) (*sql.DB, error) {
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	db, err := sql.Open("sqlite", path+sep+sqliteParams)
	if err != nil {
		return nil, fmt.Errorf("store: open SQLite: %w", err)
	}
	return db, nil
}

// isMemory reports whether path names an in-memory SQLite database.
func isMemory(path string) bool {
	return path == ":memory:" || strings.HasPrefix(path, ":memory:?") ||
		(strings.HasPrefix(path, "file:") && strings.Contains(path, "mode=memory"))
}

// orDefault returns n, or def when n is not positive.
func orDefault(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}

// errClosed is what a closed store's methods fail with (wrapped in
// ErrUnavailable).
var errClosed = errors.New("store is closed")

// ping connects to db. A SQLite connection sets WAL mode as it opens, and
// SQLite answers SQLITE_BUSY at once, without waiting out the busy
// timeout, when another process is opening the same new database: that is
// retried for up to ten seconds, as the busy timeout would.
func ping(ctx context.Context, db *sql.DB, d *dialect) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := db.PingContext(ctx)
		if err == nil || d != sqliteDialect || !strings.Contains(err.Error(), "SQLITE_BUSY") || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(20 * time.Millisecond):
		}
	}
}
