package store

import (
	"context"
	"database/sql"
	"sync"
)

// sqliteDataVersion reads a SQLite file's data version (PRAGMA
// data_version) on a connection of its own: the number moves whenever
// another connection, of this process or another, commits a change to the
// file (https://sqlite.org/pragma.html#pragma_data_version). The access
// cache stamps its answers with it, so that a change made by another
// process shows in the next answer as one made here does.
//
// Concurrent callers share reads (current): a caller waits for the next
// read to start after it arrived, so that every commit made before it
// asked shows in its answer, and one read answers every caller that
// arrived while the one before it ran. Under load the pragma then runs
// about once per read's duration, not once per request.
type sqliteDataVersion struct {
	db   *sql.DB
	stmt *sql.Stmt

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
	return &sqliteDataVersion{db: db, stmt: stmt}, nil
}

// current is the file's data version as read after the call began; ok is
// false when it cannot be read. It runs on every lookup of the access
// cache, so without a deadline of its own (a context and a timer per
// call): the pragma reads a counter in the write-ahead log's index, and
// the busy timeout bounds any wait.
func (d *sqliteDataVersion) current() (uint64, bool) {
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
	d.stmt.Close()
	return d.db.Close()
}
