package limits

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// t0 is a fixed instant in the middle of a day, so that fixed-window bugs
// and sliding-window behaviour differ visibly.
var t0 = time.Date(2030, 3, 14, 23, 0, 0, 0, time.UTC)

// limiterImpl makes a fresh limiter; every call of the same impl in one
// test shares the store (for Redis: the same key prefix).
type limiterImpl struct {
	name string
	make func(t *testing.T) func(cfg Config) Limiter
}

func implementations() []limiterImpl {
	return []limiterImpl{
		{"Memory", func(t *testing.T) func(Config) Limiter {
			return func(cfg Config) Limiter { return NewMemory(cfg) }
		}},
		{"Redis", func(t *testing.T) func(Config) Limiter {
			c := requireRedis(t)
			prefix := testPrefix(t, c)
			return func(cfg Config) Limiter { return NewRedis(c, cfg, prefix) }
		}},
	}
}

// call is one Allow at an offset from t0 and what it must decide.
type call struct {
	at         time.Duration
	allowed    bool
	remaining  int
	retryAfter time.Duration
}

func runCalls(t *testing.T, l Limiter, key string, calls []call) {
	t.Helper()
	for i, c := range calls {
		d, err := l.Allow(context.Background(), key, t0.Add(c.at))
		if err != nil {
			t.Fatalf("call %d at t0+%v: %v", i, c.at, err)
		}
		want := Decision{Allowed: c.allowed, Remaining: c.remaining, RetryAfter: c.retryAfter}
		if c.allowed && d.Reservation.IsZero() {
			t.Fatalf("call %d at t0+%v: allowed without a reservation", i, c.at)
		}
		want.Reservation = d.Reservation
		if d != want || (!c.allowed && !d.Reservation.IsZero()) {
			t.Fatalf("call %d at t0+%v: got %+v, want %+v", i, c.at, d, want)
		}
	}
}

func refused(at, retry time.Duration) call { return call{at: at, retryAfter: retry} }
func allowed(at time.Duration, remaining int) call {
	return call{at: at, allowed: true, remaining: remaining}
}

func TestLimiterSequences(t *testing.T) {
	h, ms := time.Hour, time.Millisecond
	refusedAllDay := func() []call {
		var cs []call
		for i := 1; i <= 24*6; i++ { // every 10 min for a day, all refused
			at := 3*time.Second + time.Duration(i)*10*time.Minute - time.Minute
			cs = append(cs, refused(at, retryAfter(24*h-at)))
		}
		return cs
	}
	cases := []struct {
		name  string
		cfg   Config
		calls []call
	}{
		{"four allowed then the fifth refused until the first leaves", Config{}, []call{
			allowed(0, 3), allowed(1*h, 2), allowed(2*h, 1), allowed(3*h, 0),
			refused(5*h, 19*h),
			refused(5*h+300*ms, 19*h),         // 18h59m59.7s rounds up
			refused(24*h-100*ms, time.Second), // under a second: 1 s, never 0
			refused(24*h-1500*ms, 2*time.Second),
			allowed(24*h, 0),      // t0 leaves exactly at t0+24h
			refused(24*h+ms, 1*h), // now the t0+1h call is the oldest: 1h-1ms rounds up to 1h
		}},
		{"rejected calls do not count", Config{}, append(append([]call{
			allowed(0, 3), allowed(1*time.Second, 2), allowed(2*time.Second, 1), allowed(3*time.Second, 0)},
			refusedAllDay()...),
			allowed(24*h+ms, 0),               // t0 has left; the refused calls never counted
			refused(24*h+2*ms, 1*time.Second), // t0+1s is the oldest now
			allowed(24*h+1*time.Second, 0),
		)},
		{"sliding, not fixed to calendar days", Config{}, []call{
			allowed(0, 3), allowed(1*time.Minute, 2), allowed(2*time.Minute, 1), allowed(3*time.Minute, 0),
			refused(1*h+time.Minute, 23*h-time.Minute), // 00:01 the next day: a daily reset would allow it
			refused(12*h, 12*h),
			refused(24*h-ms, time.Second),
			allowed(24*h, 0),
			refused(24*h+30*time.Second, 30*time.Second),
			allowed(24*h+1*time.Minute, 0),
			allowed(24*h+2*time.Minute, 0),
			allowed(24*h+3*time.Minute, 0),
			refused(24*h+3*time.Minute+ms, 24*h-3*time.Minute), // oldest is t0+24h now; 1ms less rounds up
		}},
		{"out-of-order calls count by their own time", Config{}, []call{
			allowed(3*h, 3), allowed(1*h, 2), allowed(2*h, 1), allowed(0, 0),
			refused(4*h, 20*h), // the earliest call, not the first made, frees the slot
			allowed(24*h, 0),
			refused(24*h+ms, 1*h),
		}},
		{"configured limit and window", Config{Limit: 2, Window: 10 * time.Second}, []call{
			allowed(0, 1), allowed(4*time.Second, 0),
			refused(5*time.Second, 5*time.Second),
			allowed(10*time.Second, 0),
			refused(13*time.Second, 1*time.Second),
			allowed(14*time.Second, 0),
		}},
		{"zero config means 4 per 24h", Config{Limit: 0, Window: 0}, []call{
			allowed(0, 3), allowed(0, 2), allowed(0, 1), allowed(0, 0), refused(0, 24*h),
		}},
	}
	for _, impl := range implementations() {
		t.Run(impl.name, func(t *testing.T) {
			newLimiter := impl.make(t)
			for i, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					runCalls(t, newLimiter(tc.cfg), fmt.Sprintf("case-%d", i), tc.calls)
				})
			}
		})
	}
}

// TestLimiterRelease: a released call no longer counts, on any limiter
// sharing the store; releasing twice, an unknown reservation or a key that
// is gone does nothing.
func TestLimiterRelease(t *testing.T) {
	key := Key("PSDNO-FSA-123456789", "6f2d7c3e-1d6b-4d8e-9a57-2f3a5c6b7d8e", "acc-1", KindBalances)
	for _, impl := range implementations() {
		t.Run(impl.name, func(t *testing.T) {
			mk := impl.make(t)
			l := mk(Config{})
			other := l
			if impl.name == "Redis" {
				other = mk(Config{}) // a second gateway on the same Redis
			}
			ctx := context.Background()
			var res []Reservation
			for i := range 4 {
				d, err := l.Allow(ctx, key, t0.Add(time.Duration(i)*time.Second))
				if err != nil || !d.Allowed {
					t.Fatalf("call %d: %+v %v", i, d, err)
				}
				res = append(res, d.Reservation)
			}
			if d, _ := l.Allow(ctx, key, t0.Add(5*time.Second)); d.Allowed {
				t.Fatal("a 5th call allowed")
			}
			if err := other.Release(ctx, key, res[1]); err != nil {
				t.Fatal(err)
			}
			if err := other.Release(ctx, key, res[1]); err != nil {
				t.Fatalf("releasing twice: %v", err)
			}
			d, err := l.Allow(ctx, key, t0.Add(6*time.Second))
			if err != nil || !d.Allowed || d.Remaining != 0 {
				t.Fatalf("after one release: %+v %v, want one call allowed", d, err)
			}
			if d, _ := l.Allow(ctx, key, t0.Add(7*time.Second)); d.Allowed {
				t.Fatal("a released place was given twice")
			}
			if err := l.Release(ctx, Key("PSDNO-FSA-123456789", "", "gone", KindBalances), res[0]); err != nil {
				t.Fatalf("releasing on an unknown key: %v", err)
			}
		})
	}
}

func TestLimiterIndependentKeys(t *testing.T) {
	base := Key("PSDNO-FSA-123456789", "6f2d7c3e-1d6b-4d8e-9a57-2f3a5c6b7d8e", "acc-1", KindBalances)
	others := []string{
		Key("PSDNO-FSA-987654321", "6f2d7c3e-1d6b-4d8e-9a57-2f3a5c6b7d8e", "acc-1", KindBalances),
		Key("PSDNO-FSA-123456789", "00000000-1d6b-4d8e-9a57-2f3a5c6b7d8e", "acc-1", KindBalances),
		Key("PSDNO-FSA-123456789", "6f2d7c3e-1d6b-4d8e-9a57-2f3a5c6b7d8e", "acc-2", KindBalances),
		Key("PSDNO-FSA-123456789", "6f2d7c3e-1d6b-4d8e-9a57-2f3a5c6b7d8e", "acc-1", KindTransactions),
	}
	for _, impl := range implementations() {
		t.Run(impl.name, func(t *testing.T) {
			l := impl.make(t)(Config{})
			runCalls(t, l, base, []call{allowed(0, 3), allowed(0, 2), allowed(0, 1), allowed(0, 0), refused(0, 24*time.Hour)})
			for i, k := range others {
				d, err := l.Allow(context.Background(), k, t0)
				if err != nil || !d.Allowed || d.Remaining != 3 {
					t.Errorf("key %d after the base key is exhausted: %+v, %v; want a fresh allowance", i, d, err)
				}
			}
		})
	}
}

func TestLimiterConcurrentCallsOneKey(t *testing.T) {
	const goroutines = 50
	for _, impl := range implementations() {
		t.Run(impl.name, func(t *testing.T) {
			l := impl.make(t)(Config{})
			var allowedN, remainingSum atomic.Int32
			var wg sync.WaitGroup
			errs := make(chan error, goroutines)
			for i := range goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					// Distinct, unordered times as from several request goroutines.
					d, err := l.Allow(context.Background(), "shared", t0.Add(time.Duration(i*7%goroutines)*time.Millisecond))
					if err != nil {
						errs <- err
						return
					}
					if d.Allowed {
						allowedN.Add(1)
						remainingSum.Add(int32(d.Remaining))
					} else if d.RetryAfter <= 0 {
						errs <- fmt.Errorf("refused without RetryAfter: %+v", d)
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			if allowedN.Load() != DefaultLimit {
				t.Fatalf("%d of %d concurrent calls allowed, want exactly %d", allowedN.Load(), goroutines, DefaultLimit)
			}
			if remainingSum.Load() != 3+2+1+0 {
				t.Errorf("Remaining values of the allowed calls sum to %d, want 6 (3,2,1,0)", remainingSum.Load())
			}
		})
	}
}

func TestKeyHasNoSeparatorCollisions(t *testing.T) {
	tuples := [][4]string{
		{"a", "b", "c", "d"},
		{"a\nb", "", "c", "d"},
		{"a", "\nb", "c", "d"},
		{"a:", "b", "c", "d"},
		{"a", ":b", "c", "d"},
		{"a;", "b", "c", "d"},
		{"a", ";b", "c", "d"},
		{"1:a;", "b", "c", "d"},
		{"", "1:a;1:b", "c", "d"},
		{"a", "b", "c;1:d", ""},
		{"a", "b", "c", "d;"},
		{"", "", "", ""},
		{"", "", "", "abcd"},
		{"abcd", "", "", ""},
	}
	seen := map[string][4]string{}
	for _, tu := range tuples {
		k := Key(tu[0], tu[1], tu[2], tu[3])
		if prev, dup := seen[k]; dup {
			t.Errorf("Key%q and Key%q both give %q", prev, tu, k)
		}
		seen[k] = tu
		if again := Key(tu[0], tu[1], tu[2], tu[3]); again != k {
			t.Errorf("Key%q not deterministic: %q then %q", tu, k, again)
		}
	}
	if got, want := Key("PSDNO-FSA-1", "p", "acc", "balances"), "11:PSDNO-FSA-1;1:p;3:acc;8:balances;"; got != want {
		t.Errorf("Key = %q, want %q", got, want)
	}
}

func TestConfigNormalized(t *testing.T) {
	cases := []struct {
		cfg  Config
		norm Config
	}{
		{Config{}, Config{4, 24 * time.Hour}},
		{Config{Limit: 4, Window: 24 * time.Hour}, Config{4, 24 * time.Hour}},
		{Config{Limit: maxLimit, Window: time.Second}, Config{maxLimit, time.Second}},
		{Config{Limit: -1}, Config{4, 24 * time.Hour}},
		{Config{Limit: maxLimit + 1}, Config{maxLimit, 24 * time.Hour}},
		{Config{Window: -time.Second}, Config{4, 24 * time.Hour}},
		{Config{Window: time.Millisecond}, Config{4, time.Second}},
	}
	for _, tc := range cases {
		if got := tc.cfg.normalized(); got != tc.norm {
			t.Errorf("%+v.normalized() = %+v, want %+v", tc.cfg, got, tc.norm)
		}
	}
}

func TestRetryAfterRounding(t *testing.T) {
	cases := []struct{ in, want time.Duration }{
		{-time.Hour, time.Second},
		{0, time.Second},
		{time.Nanosecond, time.Second},
		{time.Second, time.Second},
		{time.Second + time.Nanosecond, 2 * time.Second},
		{19 * time.Hour, 19 * time.Hour},
		{19*time.Hour - time.Millisecond, 19 * time.Hour},
	}
	for _, tc := range cases {
		if got := retryAfter(tc.in); got != tc.want {
			t.Errorf("retryAfter(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func BenchmarkKey(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = Key("PSDNO-FSA-123456789", "6f2d7c3e-1d6b-4d8e-9a57-2f3a5c6b7d8e", "3d9a4b7e-2c1f-4a5b-8e6d-7f8a9b0c1d2e", KindTransactions)
	}
}
