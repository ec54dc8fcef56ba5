package store

import (
	"context"
	"database/sql"
)

// sqliteDataVersion reads a SQLite file's data version (PRAGMA
// data_version) on a connection of its own: the number moves whenever
// another connection, of this process or another, commits a change to the
// file (https://sqlite.org/pragma.html#pragma_data_version). The access
// cache stamps its answers with it, so that a change made by another
// process shows in the next answer as one made here does.
type sqliteDataVersion struct {
	db   *sql.DB
	stmt *sql.Stmt
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

// current is the file's data version; ok is false when it cannot be read.
// It runs on every lookup of the access cache, so without a deadline of
// its own (a context and a timer per call): the pragma reads a counter in
// the write-ahead log's index, and the busy timeout bounds any wait.
func (d *sqliteDataVersion) current() (uint64, bool) {
	var v int64
	if err := d.stmt.QueryRowContext(context.Background()).Scan(&v); err != nil {
		return 0, false
	}
	return uint64(v), true
}

func (d *sqliteDataVersion) Close() error {
	d.stmt.Close()
	return d.db.Close()
}
