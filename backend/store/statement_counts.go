package store

import (
	"context"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
)

// StatementCounts says how many statements a store has run through its
// querier (the statements of its reads and of Atomically, traced in
// tracing.go) since it was opened, and how many times the database engine
// parsed one (prepared it, or ran it unprepared): with every hot statement
// prepared once, Parsed stops growing on the read paths once each of their
// statements has been met. The store's own short write transactions (inTx:
// a consent with its accounts, a payment, migrations) run on the bare
// transaction and are not counted.
//
// On SQLite, Parsed counts the statements the store prepares and those it
// runs unprepared (texts built per call, and a statement first met inside
// Atomically, which is prepared for the ones after it). database/sql
// prepares a kept statement again on each further connection of the pool
// the first time it runs there; those, at most one per connection, are not
// counted. On PostgreSQL it counts pgx's preparations (its statement
// cache's misses, per connection, whichever transaction runs them); an
// Exec without arguments goes through the simple protocol and is not
// counted.
type StatementCounts struct {
	Run, Parsed uint64
}

// Statements returns st's statement counts: zero for a store that is not
// one of Open's (or a wrapper of one from this package).
func Statements(st Store) StatementCounts {
	switch s := st.(type) {
	case observed:
		return Statements(s.st)
	case *sqlStore:
		return StatementCounts{Run: s.counts.run.Load(), Parsed: s.counts.parsed.Load()}
	}
	return StatementCounts{}
}

// statementCounter is a store's StatementCounts, shared by the store, its
// Atomically views and its prepared statements.
type statementCounter struct {
	run, parsed atomic.Uint64
}

// count counts a statement run through t, and its parse when t runs
// statements unprepared (parses).
func (t *tracedQuerier) count() {
	t.counts.run.Add(1)
	if t.parses {
		t.counts.parsed.Add(1)
	}
}

// pgxParses counts pgx's preparations into c: a pgx.QueryTracer (the
// interface ConnConfig.Tracer takes, whose two methods do nothing here)
// and a pgx.PrepareTracer.
type pgxParses struct{ c *statementCounter }

var (
	_ pgx.QueryTracer   = pgxParses{}
	_ pgx.PrepareTracer = pgxParses{}
)

func (pgxParses) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}

func (pgxParses) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (pgxParses) TracePrepareStart(ctx context.Context, _ *pgx.Conn, _ pgx.TracePrepareStartData) context.Context {
	return ctx
}

func (t pgxParses) TracePrepareEnd(_ context.Context, _ *pgx.Conn, data pgx.TracePrepareEndData) {
	if !data.AlreadyPrepared {
		t.c.parsed.Add(1)
	}
}
