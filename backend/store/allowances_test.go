package store

import (
	"testing"
	"time"
)

// TestAllowanceShared (issue 34, 5): 200 guesses in parallel from two
// instances spend one limit: exactly Burst are let through. The limit
// comes back one guess per Every, never beyond Burst; a refused guess
// holds it at most one guess back; a right guess is refunded; idle rows
// are swept.
func TestAllowanceShared(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s1, s2 := db.open(t), db.open(t)
		l := Allowance{Burst: 5, Every: 3 * time.Minute}
		now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
		results := concurrently(t, 200, func(i int) (string, error) {
			s := s1
			if i%2 == 1 {
				s = s2
			}
			ok, err := s.SpendAllowance(ctx, "psu:192.0.2.1", l, now)
			if ok {
				return "allowed", err
			}
			return "", err
		})
		allowed := 0
		for _, r := range results {
			if r != "" {
				allowed++
			}
		}
		if allowed != l.Burst {
			t.Fatalf("%d of 200 parallel guesses let through, want %d", allowed, l.Burst)
		}
		// Another key has its own limit.
		if ok, err := s1.SpendAllowance(ctx, "psu:192.0.2.2", l, now); err != nil || !ok {
			t.Fatalf("another key: %v %v", ok, err)
		}
		// One guess back after Every (the refused ones held it one back:
		// 6 spent, 5 after 3 minutes, so one guess, then refused).
		later := now.Add(l.Every)
		if ok, err := s2.SpendAllowance(ctx, "psu:192.0.2.1", l, later.Add(l.Every)); err != nil || !ok {
			t.Fatalf("after 2 × Every: %v %v", ok, err)
		}
		if ok, _ := s1.SpendAllowance(ctx, "psu:192.0.2.1", l, later.Add(l.Every)); ok {
			t.Fatal("a second guess after 2 × Every let through")
		}
		// A right guess refunded: the next one goes through.
		wantErr(t, "RefundAllowance", s1.RefundAllowance(ctx, "psu:192.0.2.1"), nil)
		wantErr(t, "RefundAllowance", s1.RefundAllowance(ctx, "psu:192.0.2.1"), nil)
		if ok, _ := s1.SpendAllowance(ctx, "psu:192.0.2.1", l, later.Add(l.Every)); !ok {
			t.Fatal("a guess after two refunds refused")
		}
		// Long idle: the whole burst again, and never more.
		idle := now.Add(24 * time.Hour)
		for i := range l.Burst + 1 {
			ok, err := s1.SpendAllowance(ctx, "psu:192.0.2.1", l, idle)
			if err != nil || ok != (i < l.Burst) {
				t.Fatalf("guess %d after a day: %v %v", i+1, ok, err)
			}
		}
		swept, err := s1.Sweep(ctx, idle.Add(2*time.Hour), DefaultRetention)
		wantErr(t, "Sweep", err, nil)
		if swept.Allowances != 2 {
			t.Fatalf("swept %d guess limits, want 2", swept.Allowances)
		}
	})
}

// TestAllowanceClockOutOfOrder: attempts whose clocks read earlier than
// the last one counted (parallel requests reaching the database in
// another order) each spend exactly one: Burst of them go through,
// whichever order their times come in, and the bucket's time does not
// move back.
func TestAllowanceClockOutOfOrder(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		l := Allowance{Burst: 5, Every: time.Hour}
		now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
		for i := range l.Burst {
			// Each attempt a second before the one counted before it.
			if ok, err := s.SpendAllowance(ctx, "psu:192.0.2.9", l, now.Add(-time.Duration(i)*time.Second)); err != nil || !ok {
				t.Fatalf("attempt %d of %d, out of order: %v %v", i+1, l.Burst, ok, err)
			}
		}
		if ok, _ := s.SpendAllowance(ctx, "psu:192.0.2.9", l, now.Add(-time.Minute)); ok {
			t.Fatal("an attempt past Burst let through")
		}
		// Two Everys after the latest attempt (one for the refused
		// attempt, which counted), one comes back, and only one.
		back := now.Add(2 * l.Every)
		if ok, _ := s.SpendAllowance(ctx, "psu:192.0.2.9", l, back); !ok {
			t.Fatal("no attempt back after 2 × Every")
		}
		if ok, _ := s.SpendAllowance(ctx, "psu:192.0.2.9", l, back); ok {
			t.Fatal("two attempts back after 2 × Every")
		}
	})
}
