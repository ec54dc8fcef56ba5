package store

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// accessChannel is the PostgreSQL notification channel on which the
// triggers of migration 17 announce, with their schema as payload, that a
// table ResolveAccess reads has changed.
const accessChannel = "obgw_access"

const (
	// listenBeat is how long the listener waits for a notice before it
	// proves the channel up with a round trip of its own.
	listenBeat = 250 * time.Millisecond
	// listenLease is how long a proof keeps the cache serving: past it,
	// with no notice and no answer to the last proof, the channel counts
	// as cut and every lookup goes to the database.
	listenLease = 3 * listenBeat
)

// accessListener holds a connection of its own that LISTENs on
// accessChannel and moves the access cache's generation on every notice
// for its schema, whichever process made the change. It says the channel
// is live only while it has heard from the database within listenLease;
// after any failure it reconnects, and moves the generation once
// listening again, since notices sent meanwhile were lost.
type accessListener struct {
	url, schema string
	cache       *accessCache
	// alive is when the channel was last proven up (UnixNano); 0 while
	// it is down.
	alive atomic.Int64
	// heard counts the notices received; notice is closed (and replaced)
	// at each, for echo's waiters.
	heard  atomic.Uint64
	mu     sync.Mutex
	notice chan struct{}
	stop   context.CancelFunc
	done   chan struct{}
}

// echoWait bounds how long a writer waits for the notice of its change.
const echoWait = 100 * time.Millisecond

// heardSoFar is the count of notices received, to give echo.
func (l *accessListener) heardSoFar() uint64 {
	return l.heard.Load()
}

// echo waits, at most echoWait, until a notice arrives after the count
// seen was taken (before a change was committed): the notice of that
// change, which the database sent every listening instance at once. A
// writer that waits for it before answering has the other instances told
// before its client can ask them anything. Without a live channel there
// is nothing to wait for: those instances do not serve from memory.
func (l *accessListener) echo(seen uint64) {
	if !l.live() {
		return
	}
	timer := time.NewTimer(echoWait)
	defer timer.Stop()
	for l.heard.Load() <= seen {
		l.mu.Lock()
		ch := l.notice
		l.mu.Unlock()
		if l.heard.Load() > seen {
			return
		}
		select {
		case <-ch:
		case <-timer.C:
			return
		}
	}
}

// noticed counts a notice and wakes echo's waiters.
func (l *accessListener) noticed() {
	l.heard.Add(1)
	l.mu.Lock()
	close(l.notice)
	l.notice = make(chan struct{})
	l.mu.Unlock()
}

// startAccessListener starts listening for cache's changes on the
// PostgreSQL at url, in schema (empty: the default search path).
func startAccessListener(url, schema string, cache *accessCache) *accessListener {
	ctx, cancel := context.WithCancel(context.Background())
	l := &accessListener{url: url, schema: schema, cache: cache, stop: cancel, done: make(chan struct{}), notice: make(chan struct{})}
	go l.run(ctx)
	return l
}

// live reports whether the channel was proven up within listenLease.
func (l *accessListener) live() bool {
	t := l.alive.Load()
	return t != 0 && time.Since(time.Unix(0, t)) < listenLease
}

// Stop closes the listener's connection and waits for it to end.
func (l *accessListener) Stop() {
	l.stop()
	<-l.done
}

func (l *accessListener) run(ctx context.Context) {
	defer close(l.done)
	backoff := 50 * time.Millisecond
	for {
		heard := l.listen(ctx)
		l.alive.Store(0)
		l.cache.changed()
		if heard {
			backoff = 50 * time.Millisecond
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// listen runs one connection until it fails or ctx ends; heard says
// whether it got as far as listening.
func (l *accessListener) listen(ctx context.Context) (heard bool) {
	cfg, err := pgx.ParseConfig(l.url)
	if err != nil {
		return false
	}
	if l.schema != "" {
		cfg.RuntimeParams["search_path"] = l.schema
	}
	cfg.RuntimeParams["application_name"] = "obgw access listener"
	cfg.ConnectTimeout = 2 * time.Second
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return false
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var own string
	if err := conn.QueryRow(ctx, `SELECT current_schema()`).Scan(&own); err != nil {
		return false
	}
	if _, err := conn.Exec(ctx, `LISTEN `+accessChannel); err != nil {
		return false
	}
	// Listening from here on: what changed before is out of force.
	l.cache.changed()
	l.proven()
	for {
		wait, cancel := context.WithTimeout(ctx, listenBeat)
		n, err := conn.WaitForNotification(wait)
		cancel()
		switch {
		case err == nil:
			if n.Channel == accessChannel && n.Payload == own {
				l.cache.changed()
				l.noticed()
			}
			l.proven()
			continue
		case ctx.Err() != nil:
			return true
		case !errors.Is(err, context.DeadlineExceeded) && !pgconnTimeout(err):
			return true
		}
		// Quiet: prove the channel up with a round trip.
		ping, cancel := context.WithTimeout(ctx, listenBeat)
		err = conn.Ping(ping)
		cancel()
		if err != nil {
			return true
		}
		l.proven()
	}
}

func (l *accessListener) proven() {
	l.alive.Store(time.Now().UnixNano())
}

// pgconnTimeout reports whether err is pgconn's report of a deadline
// reached while waiting (the connection stays usable).
func pgconnTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}
