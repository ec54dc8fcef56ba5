package store

import (
	"slices"
	"strings"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// The access cache keeps ResolveAccess's answers in memory, so that a
// consented read runs no statement to find its PSU, session and consents.
//
// Every answer is stamped with the cache's generation at the moment before
// it was read from the database, and is served only while the generation
// is unchanged. The generation moves after every change that could alter
// an answer has committed (a consent, its accounts, a session, a PSU-ID,
// a customer or an account):
//   - made by this process: after the statement, or after the commit of
//     the transaction it ran in (tracedQuerier.noteWrite, sqlStore.runTx,
//     Atomically);
//   - made by any other on PostgreSQL: the tables' triggers (migration 17)
//     notify on commit, and accessListener moves the generation when the
//     notice arrives;
//   - made by any other on a SQLite file (two gateways on one file, obgw
//     import while the gateway runs): every answer is also stamped with
//     the file's data version (sqliteDataVersion), which any commit moves,
//     and a lookup reads it (a pragma on a connection of its own, not a
//     query of a table; on Linux only after an inotify watch of the file
//     saw a write, see fileWatch).
//
// An answer read before a change committed therefore carries an older
// generation than the one in force after it, whatever the order of the
// reader and the writer. On PostgreSQL the cache serves only while the
// listener holds a fresh lease (it heard from the database within
// listenLease); when the channel is cut, every lookup goes to the database
// (fail safe), and a listener that reconnects moves the generation, since
// it may have missed notices.
//
// Entries also expire after accessTTL, whatever happens. The cache holds
// at most accessCacheSize answers (least recently used go first), so no
// client can make it grow. An unknown PSU-ID is an answer too (a nil
// Access): creating a PSU-ID is a change like any other.
type accessCache struct {
	gen     atomic.Uint64
	entries *lru.Cache[accessKey, accessEntry]
	// live, when set, says whether the invalidation channel is up
	// (PostgreSQL).
	live func() bool
	// fileVersion, when set, is the SQLite file's data version
	// (sqliteDataVersion): it moves on any commit by any connection,
	// another process's included.
	fileVersion func() (uint64, bool)
}

const (
	accessCacheSize = 20000
	accessTTL       = time.Second
)

// accessKey is one ResolveAccess question.
type accessKey struct {
	tpp, psuID, tppSessionID, accountID string
}

type accessEntry struct {
	// a is the answer; nil for an unknown PSU-ID.
	a    *Access
	at   stamp
	read time.Time
}

// stamp is the state an answer was read in: the generation and, on a
// SQLite file, its data version.
type stamp struct {
	gen, file uint64
}

func newAccessCache() *accessCache {
	c, err := lru.New[accessKey, accessEntry](accessCacheSize)
	if err != nil {
		panic(err) // only for a size below 1
	}
	return &accessCache{entries: c}
}

// now is the stamp to give an answer about to be read; ok is false when
// the cache must not be used now.
func (c *accessCache) now() (st stamp, ok bool) {
	if c.live != nil && !c.live() {
		return stamp{}, false
	}
	st.gen = c.gen.Load()
	if c.fileVersion != nil {
		if st.file, ok = c.fileVersion(); !ok {
			return stamp{}, false
		}
	}
	return st, true
}

// get returns a copy of the answer to k if one is in force (nil: the
// PSU-ID is unknown).
func (c *accessCache) get(k accessKey) (*Access, bool) {
	e, ok := c.entries.Get(k)
	if !ok || time.Since(e.read) >= accessTTL {
		return nil, false
	}
	if st, ok := c.now(); !ok || st != e.at {
		return nil, false
	}
	return e.a.clone(), true
}

// put keeps a copy of a, read after the stamp at was taken, unless the
// generation has moved since (a change committed while it was read; a
// file version that moved shows at the next get).
func (c *accessCache) put(k accessKey, a *Access, at stamp, read time.Time) {
	if c.gen.Load() != at.gen {
		return
	}
	c.entries.Add(k, accessEntry{a: a.clone(), at: at, read: read})
}

// changed moves the generation: every answer kept so far is out of force.
func (c *accessCache) changed() {
	c.gen.Add(1)
}

// clone copies what a caller may change: the Access and its consents
// (their account lists, session and account are only read).
func (a *Access) clone() *Access {
	if a == nil {
		return nil
	}
	cp := *a
	cp.Consents = slices.Clone(a.Consents)
	return &cp
}

// accessTables are the tables ResolveAccess reads; a statement that
// writes one of them (by name: "accounts" also covers consent_accounts)
// moves the cache's generation.
var accessTables = []string{"consents", "sessions", "psu_ids", "customers", "accounts"}

// changesAccess reports whether query may change what ResolveAccess
// answers: it is not a SELECT, and names one of accessTables. A statement
// the store does not know (DDL, a pragma) counts when it names a table.
func changesAccess(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n")
	if len(q) >= 6 && strings.EqualFold(q[:6], "SELECT") {
		return false
	}
	for _, t := range accessTables {
		if strings.Contains(query, t) {
			return true
		}
	}
	return false
}
