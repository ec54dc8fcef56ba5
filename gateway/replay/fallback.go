package replay

import (
	"context"
	"time"
)

// Fallback is a Store that asks Primary (Redis, shared by every gateway)
// and, when Primary cannot answer, Secondary (this process's memory). A
// Redis outage then weakens replay protection to one instance instead of
// either stopping every route or dropping the protection.
type Fallback struct {
	// Primary is the shared store.
	Primary Store
	// Secondary answers while Primary fails.
	Secondary Store
	// OnFallback, if set, is called with Primary's error each time
	// Secondary answers instead (for metrics and logs).
	OnFallback func(error)
}

// Claim implements Store.
func (f *Fallback) Claim(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	ok, err := f.Primary.Claim(ctx, key, ttl)
	if err == nil {
		return ok, nil
	}
	if f.OnFallback != nil {
		f.OnFallback(err)
	}
	return f.Secondary.Claim(ctx, key, ttl)
}
