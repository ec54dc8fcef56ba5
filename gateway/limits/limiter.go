package limits

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// Defaults from the interface description's Limits table.
const (
	// DefaultLimit is the number of PSU-not-present calls allowed per window.
	DefaultLimit = 4
	// DefaultWindow is the length of the rolling window.
	DefaultWindow = 24 * time.Hour
)

// maxLimit bounds Config.Limit, because Memory keeps one timestamp per
// allowed call and key.
const maxLimit = 1000

// Kinds of limited calls. Transaction details count with transactions, and
// card accounts use the same kinds (their resource ids differ).
const (
	// KindBalances is GET .../accounts/{id}/balances and its card equivalent.
	KindBalances = "balances"
	// KindTransactions is GET .../accounts/{id}/transactions, transaction
	// details and their card equivalents.
	KindTransactions = "transactions"
)

// Decision is the outcome of one Allow call.
type Decision struct {
	// Allowed reports whether the call may proceed; it was then counted.
	Allowed bool
	// Remaining is how many more calls the window allows after this one;
	// 0 when refused.
	Remaining int
	// RetryAfter is set when refused: the time until the oldest counted call
	// leaves the window, rounded up to whole seconds and at least 1 s.
	RetryAfter time.Duration
	// Reservation names the call counted when allowed, for Release.
	Reservation Reservation
}

// Reservation names one counted call of one limiter's store, so that
// Release can take it back. The zero Reservation names none.
type Reservation struct {
	at     int64  // Memory: the call's time, unix nanoseconds
	member string // Redis: the call's member of the key's sorted set
}

// IsZero reports whether r names no call.
func (r Reservation) IsZero() bool { return r.at == 0 && r.member == "" }

// Limiter decides whether one more call under key is allowed at now.
type Limiter interface {
	// Allow counts the call if it is allowed. An error means the limiter
	// could not decide (its store is unreachable); the caller applies its
	// on_error policy, and Decision is then the zero value (not allowed).
	Allow(ctx context.Context, key string, now time.Time) (Decision, error)
	// Release takes back the call an allowed Decision counted (its
	// Reservation), when the call was not served after all: refused calls
	// do not count. Releasing a call that has left the window, or twice,
	// does nothing.
	Release(ctx context.Context, key string, r Reservation) error
}

// Config sets the limit. Zero fields take the defaults.
type Config struct {
	// Limit is the number of calls allowed per Window; 0 means DefaultLimit.
	Limit int
	// Window is the length of the rolling window; 0 means DefaultWindow.
	// Redis keeps it with millisecond precision and timestamps in
	// microseconds.
	Window time.Duration
}

// normalized applies the defaults and clamps a limit above maxLimit or a
// window under 1 s, always towards a stricter or equal limit, so that
// constructors never fail.
func (c Config) normalized() Config {
	if c.Limit <= 0 {
		c.Limit = DefaultLimit
	}
	if c.Limit > maxLimit {
		c.Limit = maxLimit
	}
	if c.Window <= 0 {
		c.Window = DefaultWindow
	}
	if c.Window < time.Second {
		c.Window = time.Second
	}
	return c
}

// Key builds the limiter key for one PSU's calls of one kind on one
// resource. Each part is length-prefixed, so no choice of characters in the
// parts (PSU-IDs and resource ids come from the TPP) makes two different
// tuples share a key.
func Key(tpp, psuID, resourceID, kind string) string {
	var b strings.Builder
	b.Grow(len(tpp) + len(psuID) + len(resourceID) + len(kind) + 4*5)
	for _, part := range [...]string{tpp, psuID, resourceID, kind} {
		b.WriteString(strconv.Itoa(len(part)))
		b.WriteByte(':')
		b.WriteString(part)
		b.WriteByte(';')
	}
	return b.String()
}

// retryAfter rounds the time until a slot frees up to whole seconds, at
// least one, as Retry-After carries whole seconds and 0 would invite an
// immediate retry that is still refused.
func retryAfter(d time.Duration) time.Duration {
	if d <= time.Second {
		return time.Second
	}
	if r := d % time.Second; r != 0 {
		d += time.Second - r
	}
	return d
}
