package eidas

import (
	"errors"
	"sync"
)

// errFlightAborted is what waiters get when the call they waited for
// panicked: an error, so that a crash never reads as "not revoked".
var errFlightAborted = errors.New("eidas: revocation check aborted")

// flightGroup runs one call per key at a time: callers that ask for a key
// while its call is running wait for it and share its result, so that a
// burst of requests with the same uncached certificate makes one network
// request. It is safe for concurrent use; the zero value is ready.
type flightGroup[K comparable, V any] struct {
	mu      sync.Mutex
	flights map[K]*flight[V]
}

// flight is one running call.
type flight[V any] struct {
	done    chan struct{}
	waiters int // callers sharing the result besides the one running it
	val     V
	err     error
}

// do runs fn, or waits for the running call of key, and returns its
// result.
func (g *flightGroup[K, V]) do(key K, fn func() (V, error)) (V, error) {
	g.mu.Lock()
	if f, ok := g.flights[key]; ok {
		f.waiters++
		g.mu.Unlock()
		<-f.done
		return f.val, f.err
	}
	if g.flights == nil {
		g.flights = make(map[K]*flight[V])
	}
	f := &flight[V]{done: make(chan struct{}), err: errFlightAborted}
	g.flights[key] = f
	g.mu.Unlock()

	defer func() {
		g.mu.Lock()
		delete(g.flights, key)
		g.mu.Unlock()
		close(f.done)
	}()
	f.val, f.err = fn()
	return f.val, f.err
}

// waiting returns how many callers wait for the running call of key.
func (g *flightGroup[K, V]) waiting(key K) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if f, ok := g.flights[key]; ok {
		return f.waiters
	}
	return 0
}
