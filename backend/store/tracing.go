package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Trace spans of the store: one per statement run through sqlStore.q or
// direct(), one per transaction. A span is made only under a recording
// span of the caller (the request's, when Caddy's tracing handler is in
// front), through that span's own TracerProvider: there is no global one to
// configure, and without a recording span a statement costs one look-up of
// the context and nothing else (no allocation), which is why this is a
// wrapper of the store's own and not a driver-level instrumentation such
// as otelsql, whose per-statement metrics, closures and wrapped rows cost
// allocations on every query whether or not anyone traces.
//
// Spans say what ran, never with which values: the operation and table as
// name, the statement's text (the store's constant texts, with $N
// placeholders: no argument is recorded) and, on failure, the kind of
// error and PostgreSQL's SQLSTATE, not its message, which can quote
// values.

// tracerName is the instrumentation scope of the store's spans.
const tracerName = "github.com/obgw/obgw/backend/store"

// Attribute keys, as OpenTelemetry's database conventions name them.
const (
	attrSystem     = attribute.Key("db.system.name")
	attrOperation  = attribute.Key("db.operation.name")
	attrCollection = attribute.Key("db.collection.name")
	attrQuery      = attribute.Key("db.query.text")
	attrStatus     = attribute.Key("db.response.status_code")
	attrErrorType  = attribute.Key("error.type")
)

// tracedQuerier runs statements through q, each in a span of its own when
// the context's span is recording.
type tracedQuerier struct {
	q querier
	// system is db.system.name: sqlite or postgresql.
	system string
	// counts counts each statement run, and each parsed when parses is
	// set (SQLite's statements run unprepared, direct()'s).
	counts *statementCounter
	parses bool
	// store is the store (or view) whose statements these are: its access
	// cache hears of their changes (noteWrite).
	store *sqlStore
	// detached runs each statement without its context's cancellation
	// (a shared transaction's view, commit_group.go).
	detached bool
}

// noteWrite tells the access cache that a statement, just run, may have changed
// what ResolveAccess answers: outside a transaction the change has
// committed (the generation moves, and on PostgreSQL the writer waits for
// the notice of it, counted from seen), inside one the view is marked and
// Atomically does the same after the commit.
func (t *tracedQuerier) noteWrite(seen uint64) {
	if t.store == nil || t.store.access == nil {
		return
	}
	if m := t.store.marks; m != nil {
		m.changed, m.notified = true, true
		return
	}
	t.store.access.changed()
	t.store.echo(seen)
}

// writes returns whether query changes what ResolveAccess answers, and
// the count of notices before it runs.
func (t *tracedQuerier) writes(query string) (bool, uint64) {
	if !changesAccess(query) {
		return false, 0
	}
	if t.store == nil {
		return true, 0
	}
	return true, t.store.heardSoFar()
}

// traceQueries makes s run its statements (s.q) through q and direct()'s
// through plain, traced and counted (statement_counts.go). The wrappers
// live in s itself, so a view made for a transaction costs no allocation
// for them.
func (s *sqlStore) traceQueries(q, plain querier) {
	s.queries = tracedQuerier{q: q, system: s.d.system(), counts: s.counts, store: s, detached: s.detached}
	s.plainQueries = tracedQuerier{q: plain, system: s.d.system(), counts: s.counts, parses: s.d == sqliteDialect, store: s, detached: s.detached}
	s.q = &s.queries
}

// system is the dialect's db.system.name.
func (d *dialect) system() string {
	if d == postgresDialect {
		return "postgresql"
	}
	return d.name
}

func (t *tracedQuerier) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	t.count()
	if t.detached {
		ctx = context.WithoutCancel(ctx)
	}
	if w, seen := t.writes(query); w {
		defer t.noteWrite(seen)
	}
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return t.q.ExecContext(ctx, query, args...)
	}
	ctx, span := t.start(ctx, parent, query)
	res, err := t.q.ExecContext(ctx, query, args...)
	endSpan(span, err)
	return res, err
}

// QueryContext's span ends when the query has answered, before its rows
// are read.
func (t *tracedQuerier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	t.count()
	if t.detached {
		ctx = context.WithoutCancel(ctx)
	}
	if w, seen := t.writes(query); w {
		defer t.noteWrite(seen)
	}
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return t.q.QueryContext(ctx, query, args...)
	}
	ctx, span := t.start(ctx, parent, query)
	rows, err := t.q.QueryContext(ctx, query, args...)
	endSpan(span, err)
	return rows, err
}

func (t *tracedQuerier) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	t.count()
	if t.detached {
		ctx = context.WithoutCancel(ctx)
	}
	if w, seen := t.writes(query); w {
		defer t.noteWrite(seen)
	}
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return t.q.QueryRowContext(ctx, query, args...)
	}
	ctx, span := t.start(ctx, parent, query)
	row := t.q.QueryRowContext(ctx, query, args...)
	endSpan(span, row.Err())
	return row
}

// start opens the span of query under parent.
func (t *tracedQuerier) start(ctx context.Context, parent trace.Span, query string) (context.Context, trace.Span) {
	op, table := querySummary(query)
	name := op
	attrs := make([]attribute.KeyValue, 0, 4)
	attrs = append(attrs, attrSystem.String(t.system), attrOperation.String(op), attrQuery.String(query))
	if table != "" {
		name += " " + table
		attrs = append(attrs, attrCollection.String(table))
	}
	return parent.TracerProvider().Tracer(tracerName).Start(ctx, name,
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

// startTx opens the span of a transaction (op as inTx names it), or
// returns nil when the context's span is not recording.
func (s *sqlStore) startTx(ctx context.Context, op string) trace.Span {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return nil
	}
	_, span := parent.TracerProvider().Tracer(tracerName).Start(ctx, "transaction "+op,
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrSystem.String(s.d.system())))
	return span
}

// endSpan ends span, marking it failed when err is not nil; span may be
// nil (startTx without a recording span).
func endSpan(span trace.Span, err error) {
	if span == nil {
		return
	}
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			span.SetAttributes(attrStatus.String(pe.Code))
		}
		span.SetAttributes(attrErrorType.String(fmt.Sprintf("%T", err)))
		span.SetStatus(codes.Error, "")
	}
	span.End()
}

// querySummary returns a statement's operation (its first word: SELECT,
// INSERT, ...) and the table it reads or writes (the word after the first
// FROM, INTO or UPDATE), for the span's name.
func querySummary(query string) (op, table string) {
	words := strings.Fields(query)
	if len(words) == 0 {
		return "", ""
	}
	op = strings.ToUpper(words[0])
	for i, w := range words[:len(words)-1] {
		switch strings.ToUpper(w) {
		case "FROM", "INTO", "UPDATE":
			return op, strings.TrimFunc(words[i+1], func(r rune) bool {
				return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
			})
		}
	}
	return op, ""
}
