package eidas

import (
	"sync"
	"time"
)

// Defaults of the timeout backoff of OCSPChecker and CRLFetcher.
const (
	defaultTimeoutBackoff = 10 * time.Second
	// maxSourcesBackedOff bounds the sources remembered. They come from
	// trusted certificates, so this is a bound on memory, not a policy.
	maxSourcesBackedOff = 1024
)

// sourceBackoff remembers revocation sources (OCSP responder and CRL
// distribution point URLs) that let a check time out, so that they are
// skipped for a while: while a source hangs, one check waits for its
// timeout, not every check. A source that refuses connections fails fast
// and is not skipped.
type sourceBackoff struct {
	mu    sync.Mutex
	until map[string]time.Time
}

// skipped reports whether source u timed out recently, and until when it
// is skipped.
func (b *sourceBackoff) skipped(u string, now time.Time) (time.Time, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	until, ok := b.until[u]
	if ok && !now.Before(until) {
		delete(b.until, u)
		return time.Time{}, false
	}
	return until, ok
}

// add skips source u for d (zero: the default; negative: not at all).
func (b *sourceBackoff) add(u string, now time.Time, d time.Duration) {
	if d < 0 {
		return
	}
	if d == 0 {
		d = defaultTimeoutBackoff
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.until == nil {
		b.until = make(map[string]time.Time)
	}
	if len(b.until) >= maxSourcesBackedOff {
		for k, t := range b.until {
			if !now.Before(t) {
				delete(b.until, k)
			}
		}
		if len(b.until) >= maxSourcesBackedOff {
			return
		}
	}
	b.until[u] = now.Add(d)
}
