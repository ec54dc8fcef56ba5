package store

import (
	"context"
	"database/sql"
	"sync"
)

// maxPrepared bounds the statements preparedDB keeps. The store's
// statements are constants, a few dozen; the bound only matters for texts
// built per call (IN lists of n placeholders), which past it run unprepared.
const maxPrepared = 512

// preparedDB runs the pool's statements through statements prepared once:
// database/sql prepares a *sql.Stmt on each connection the first time it
// runs there and keeps it, where a plain query is parsed on every call.
// (SQLite's driver parsed every statement of every request: a fifth of a
// consented read's time. pgx caches prepared statements by itself, so only
// SQLite goes through this.)
type preparedDB struct {
	db      *sql.DB
	mu      sync.RWMutex
	stmts   map[string]*sql.Stmt
	pending map[string]bool // being prepared in the background (prepareLater)
	// counts counts each preparation and each statement run unprepared.
	counts *statementCounter
}

func newPreparedDB(db *sql.DB, counts *statementCounter) *preparedDB {
	return &preparedDB{db: db, stmts: map[string]*sql.Stmt{}, pending: map[string]bool{}, counts: counts}
}

// parsed counts a statement the engine parses: prepared, or run unprepared.
func (p *preparedDB) parsed() {
	p.counts.parsed.Add(1)
}

// prepareLater prepares query on the pool in the background, once however
// many ask: for a statement first met inside a transaction, which cannot
// wait for a second connection itself. The transactions after it find it
// prepared.
func (p *preparedDB) prepareLater(query string) {
	p.mu.Lock()
	if _, ok := p.stmts[query]; ok || p.pending[query] || len(p.stmts)+len(p.pending) >= maxPrepared {
		p.mu.Unlock()
		return
	}
	p.pending[query] = true
	p.mu.Unlock()
	go func() {
		p.stmt(context.Background(), query)
		p.mu.Lock()
		delete(p.pending, query)
		p.mu.Unlock()
	}()
}

// stmt returns the prepared statement of query, preparing it at its first
// use; nil when it cannot be prepared or the cache is full (the caller
// then runs the query as it is, and gets its error, if any, from there).
// It prepares without holding the cache's lock: preparing waits for a
// connection of the pool.
func (p *preparedDB) stmt(ctx context.Context, query string) *sql.Stmt {
	if st, ok := p.cached(query); ok {
		return st
	}
	if p.prepared() >= maxPrepared {
		return nil
	}
	p.parsed()
	st, err := p.db.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if prev, ok := p.stmts[query]; ok {
		// Another request prepared it meanwhile.
		st.Close()
		return prev
	}
	if len(p.stmts) >= maxPrepared {
		st.Close()
		return nil
	}
	p.stmts[query] = st
	return st
}

// cached returns the prepared statement of query, if there is one.
func (p *preparedDB) cached(query string) (*sql.Stmt, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	st, ok := p.stmts[query]
	return st, ok && st != nil
}

func (p *preparedDB) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := p.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	p.parsed()
	return p.db.ExecContext(ctx, query, args...)
}

func (p *preparedDB) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := p.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	p.parsed()
	return p.db.QueryContext(ctx, query, args...)
}

func (p *preparedDB) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := p.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	p.parsed()
	return p.db.QueryRowContext(ctx, query, args...)
}

// prepared reports how many statements p keeps.
func (p *preparedDB) prepared() int {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return len(p.stmts)
}

// Close closes the prepared statements.
func (p *preparedDB) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for q, st := range p.stmts {
		st.Close()
		delete(p.stmts, q)
	}
}

// preparedTx runs a transaction's statements through p's prepared
// statements: database/sql re-uses the one prepared on the transaction's
// connection (Tx.StmtContext), so a write inside Atomically is not parsed
// again either. A statement p does not hold yet runs on the transaction as
// it is and is prepared on the pool in the background: preparing it here
// would wait for a second connection while the transaction holds one (a
// pool of one, :memory:, would never get it).
type preparedTx struct {
	tx *sql.Tx
	p  *preparedDB
}

func (t preparedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st, ok := t.p.cached(query); ok {
		ts := t.tx.StmtContext(ctx, st)
		defer ts.Close()
		return ts.ExecContext(ctx, args...)
	}
	t.p.prepareLater(query)
	t.p.parsed()
	return t.tx.ExecContext(ctx, query, args...)
}

func (t preparedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st, ok := t.p.cached(query); ok {
		// The statement stays open until its rows are closed: closing a
		// transaction's statement closes its rows (database/sql); the
		// transaction's end closes it.
		return t.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	t.p.prepareLater(query)
	t.p.parsed()
	return t.tx.QueryContext(ctx, query, args...)
}

func (t preparedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st, ok := t.p.cached(query); ok {
		return t.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	t.p.prepareLater(query)
	t.p.parsed()
	return t.tx.QueryRowContext(ctx, query, args...)
}
