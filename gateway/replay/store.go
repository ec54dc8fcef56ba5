package replay

import (
	"context"
	"time"
)

// Store records request keys.
type Store interface {
	// Claim records key for ttl. It reports true if the key was new, false
	// if it was already claimed and has not expired. An error means the
	// store could not answer; the caller decides whether to fail closed.
	Claim(ctx context.Context, key string, ttl time.Duration) (bool, error)
}

// Key joins the TPP, its X-Request-ID and the signed Date into a store
// key. A captured request sent again carries the same signed Date and is
// refused; a TPP's retry of a request that timed out is signed anew with a
// fresh Date and reaches the backend, whose idempotency (one payment per
// TPP and X-Request-ID) answers it. None of the parts can hold a newline
// (the gateway's hygiene check refuses control characters in headers).
func Key(tpp, requestID, date string) string {
	return tpp + "\n" + requestID + "\n" + date
}
