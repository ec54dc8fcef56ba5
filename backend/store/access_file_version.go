package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"sync"
	"sync/atomic"
)

// sqliteDataVersion reads a SQLite file's data version (PRAGMA
// data_version) on a connection of its own: the number moves whenever
// another connection, of this process or another, commits a change to the
// file (https://sqlite.org/pragma.html#pragma_data_version). The access
// cache stamps its answers with it, so that a change made by another
// process shows in the next answer as one made here does.
//
// Where the file can be watched (fileWatch: inotify, on Linux), a
// version read after the watch's queue was drained and SQLite's write
// lock was taken and given back (settled) is kept, and served for as long
// as nothing writes to the file: a lookup
// then costs one system call that finds the queue empty, not a read
// transaction (about 5% of the CPU of a 401 without consent). Any write,
// this process's own included, sends the next lookup to the pragma again.
//
// Otherwise concurrent callers share reads: a caller waits for the next
// read to start after it arrived, so that every commit made before it
// asked shows in its answer, and one read answers every caller that
// arrived while the one before it ran. Under load the pragma then runs
// about once per read's duration, not once per request.
type sqliteDataVersion struct {
	db   *sql.DB
	stmt *sql.Stmt

	// watch, when set, is the file's watch; watchMu guards it with kept
	// (the version settled read after the queue was last found quiet,
	// valid while held is true). A watch that fails is closed and set to
	// nil.
	watchMu sync.Mutex
	watch   *fileWatch
	kept    uint64
	held    bool

	// reads counts the pragma's runs.
	reads atomic.Uint64

	mu      sync.Mutex
	running bool         // a read is in progress
	next    *versionRead // the read that starts after it; nil: none asked for
}

// versionRead is one read of the data version and the callers it answers.
type versionRead struct {
	// lead closes when the read before this one ended: one of the callers
	// waiting runs this one.
	lead chan struct{}
	// done closes when v and ok are set.
	done chan struct{}
	v    uint64
	ok   bool
}

func openSQLiteDataVersion(path string) (*sqliteDataVersion, error) {
	db, err := openSQLite(path)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxIdleTime(0)
	stmt, err := db.Prepare(`PRAGMA data_version`)
	if err != nil {
		db.Close()
		return nil, err
	}
	d := &sqliteDataVersion{db: db, stmt: stmt}
	// Without a watch every lookup reads the pragma: slower, as correct.
	d.watch, _ = watchFile(path)
	return d, nil
}

// current is the file's data version as read after the call began; ok is
// false when it cannot be read. It runs on every lookup of the access
// cache, so without a deadline of its own (a context and a timer per
// call): the pragma reads a counter in the write-ahead log's index, and
// the busy timeout bounds any wait (none on a watched file: settled).
func (d *sqliteDataVersion) current() (uint64, bool) {
	d.watchMu.Lock()
	if d.watch == nil {
		d.watchMu.Unlock()
		return d.read()
	}
	quiet, err := d.watch.quiet()
	if err != nil {
		d.watch.Close()
		d.watch, d.held = nil, false
	}
	if err != nil || !quiet {
		// Being written: a commit whose pages raised the events drained
		// here may not be visible yet, so what is read now is not kept.
		d.held = false
		d.watchMu.Unlock()
		return d.read()
	}
	defer d.watchMu.Unlock()
	if !d.held {
		d.kept, d.held = d.settled()
		if !d.held {
			return d.read()
		}
	}
	return d.kept, true
}

// settled reads the data version once every write transaction that began
// before the call has ended: it takes SQLite's write lock (BEGIN
// IMMEDIATE) and gives it back at once, writing nothing. In WAL mode a
// writer holds that lock from before it writes its first page to the -wal
// until its commit is visible, so every commit whose writes raised an
// event before the watch's queue was drained shows in the version read
// after.
//
// It does not wait for the lock (busy_timeout 0 on its connection): a
// writer that holds it for long (an import, the retention sweep) would
// hold every lookup with it. A lock held elsewhere fails the call, and
// the lookup reads the version without keeping it.
func (d *sqliteDataVersion) settled() (uint64, bool) {
	ctx := context.Background()
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return 0, false
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA busy_timeout = 0"); err != nil {
		return 0, false
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return 0, false
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		// The connection may still hold the lock: drop it from the pool.
		conn.Raw(func(any) error { return driver.ErrBadConn })
		return 0, false
	}
	var v int64
	d.reads.Add(1)
	if err := conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err != nil {
		return 0, false
	}
	return uint64(v), true
}

// read reads the data version, sharing the read with concurrent callers
// (see sqliteDataVersion).
func (d *sqliteDataVersion) read() (uint64, bool) {
	d.mu.Lock()
	r := d.next
	if r == nil {
		r = &versionRead{lead: make(chan struct{}), done: make(chan struct{})}
		d.next = r
	}
	if d.take(r) {
		d.mu.Unlock()
		d.run(r)
		return r.v, r.ok
	}
	d.mu.Unlock()
	select {
	case <-r.done:
	case <-r.lead:
		d.mu.Lock()
		mine := d.take(r)
		d.mu.Unlock()
		if mine {
			d.run(r)
		}
		<-r.done
	}
	return r.v, r.ok
}

// take starts read r when no read runs and r is the next one; d.mu is
// held.
func (d *sqliteDataVersion) take(r *versionRead) bool {
	if d.running || d.next != r {
		return false
	}
	d.running, d.next = true, nil
	return true
}

// run reads the version for r's callers, then lets the callers of the
// next read, if any asked meanwhile, start it.
func (d *sqliteDataVersion) run(r *versionRead) {
	var v int64
	d.reads.Add(1)
	err := d.stmt.QueryRowContext(context.Background()).Scan(&v)
	r.v, r.ok = uint64(v), err == nil
	close(r.done)
	d.mu.Lock()
	d.running = false
	if d.next != nil {
		close(d.next.lead)
	}
	d.mu.Unlock()
}

func (d *sqliteDataVersion) Close() error {
	d.watchMu.Lock()
	if d.watch != nil {
		d.watch.Close()
		d.watch = nil
	}
	d.watchMu.Unlock()
	d.stmt.Close()
	return d.db.Close()
}
