package store

import (
	"context"
	"database/sql"
	"time"
)

// walCheckpointInterval is how often a file-backed SQLite store copies its
// write-ahead log into the database file.
var walCheckpointInterval = time.Second

// walCheckpointer copies a SQLite database's write-ahead log back into the
// database file in the background. Left to itself, SQLite does it inside
// the commit that takes the log past wal_autocheckpoint pages, and that
// commit pays for copying and syncing a thousand pages: a few milliseconds
// for one request in a few hundred, which was the whole p99 of payment
// creation. The automatic checkpoint stays as a backstop (see
// sqliteParams) at a size the background checkpoints do not reach.
type walCheckpointer struct {
	stop chan struct{}
	done chan struct{}
}

// startWALCheckpoints runs a passive checkpoint of db every interval until
// Stop. A passive checkpoint neither waits for nor blocks writers; frames
// it cannot copy yet are copied by a later one.
func startWALCheckpoints(db *sql.DB, every time.Duration) *walCheckpointer {
	c := &walCheckpointer{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-c.stop:
				return
			case <-t.C:
				ctx, cancel := context.WithTimeout(context.Background(), every)
				var busy, logFrames, copied int
				// An error (the database going away) is retried next tick.
				_ = db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &logFrames, &copied)
				cancel()
			}
		}
	}()
	return c
}

// Stop ends the checkpoints and waits for a running one to finish.
func (c *walCheckpointer) Stop() {
	close(c.stop)
	<-c.done
}
