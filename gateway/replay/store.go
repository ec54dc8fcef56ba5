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

// Key joins the TPP and its X-Request-ID into a store key. The TPP is its
// organizationIdentifier, which cannot contain a newline.
func Key(tpp, requestID string) string {
	return tpp + "\n" + requestID
}
