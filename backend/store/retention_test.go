package store

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// TestSweep: flows, sessions and consents past their retention are
// deleted, the others kept, and a consent whose validity ended is marked
// expired (readers compute it; the sweep stores it), on every backend;
// sweeping again changes nothing more.
func TestSweep(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		const tpp = "PSDNO-FSA-111111111"
		now := time.Now().UTC().Truncate(time.Microsecond)
		c := mustCustomer(t, s, "01017012345", CustomerPrivate)
		a := mustAccount(t, s, c.ID, "NO9312345678903")
		oldFlow := &SCAFlow{TPP: tpp, TPPSessionID: "s", RedirectURI: "https://tpp.example/cb", Purpose: "consent", State: FlowPending,
			CSRF: "x", ExpiresAt: now.Add(-25 * time.Hour)}
		newFlow := &SCAFlow{TPP: tpp, TPPSessionID: "s", RedirectURI: "https://tpp.example/cb", Purpose: "consent", State: FlowPending,
			CSRF: "y", ExpiresAt: now.Add(-23 * time.Hour)}
		wantErr(t, "CreateSCAFlow old", s.CreateSCAFlow(ctx, oldFlow), nil)
		wantErr(t, "CreateSCAFlow new", s.CreateSCAFlow(ctx, newFlow), nil)
		wantErr(t, "CompleteSession old", s.CompleteSession(ctx, &Session{TPP: tpp, TPPSessionID: "old", CustomerID: c.ID, ValidUntil: now.Add(-25 * time.Hour)}), nil)
		wantErr(t, "CompleteSession new", s.CompleteSession(ctx, &Session{TPP: tpp, TPPSessionID: "new", CustomerID: c.ID, ValidUntil: now.Add(-time.Hour)}), nil)
		oldConsent := &Consent{TPP: tpp, CustomerID: c.ID, AccountIDs: []string{a.ID}, Status: ConsentExpired, ValidUntil: now.Add(-91 * 24 * time.Hour)}
		newConsent := &Consent{TPP: tpp, CustomerID: c.ID, AccountIDs: []string{a.ID}, Status: ConsentValid, ValidUntil: now.Add(24 * time.Hour)}
		wantErr(t, "CreateConsent old", s.CreateConsent(ctx, oldConsent), nil)
		wantErr(t, "CreateConsent new", s.CreateConsent(ctx, newConsent), nil)
		ranOut := &Consent{TPP: tpp, CustomerID: c.ID, AccountIDs: []string{a.ID}, Status: ConsentValid, ValidUntil: now.Add(-time.Hour)}
		wantErr(t, "CreateConsent ran out", s.CreateConsent(ctx, ranOut), nil)

		got, err := s.Sweep(ctx, now, DefaultRetention)
		wantErr(t, "Sweep", err, nil)
		if got != (Swept{Flows: 1, Sessions: 1, Consents: 1, Expired: 1}) {
			t.Fatalf("Sweep = %+v, want one of each", got)
		}
		if _, err := s.GetSCAFlow(ctx, oldFlow.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("the old flow: %v", err)
		}
		if _, err := s.GetSCAFlow(ctx, newFlow.ID); err != nil {
			t.Errorf("the recent flow: %v", err)
		}
		if _, err := s.GetSession(ctx, tpp, "old"); !errors.Is(err, ErrNotFound) {
			t.Errorf("the old session: %v", err)
		}
		if _, err := s.GetSession(ctx, tpp, "new"); err != nil {
			t.Errorf("the recent session: %v", err)
		}
		if _, err := s.GetConsent(ctx, oldConsent.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("the old consent: %v", err)
		}
		if k, err := s.GetConsent(ctx, newConsent.ID); err != nil || len(k.AccountIDs) != 1 || k.Status != ConsentValid {
			t.Errorf("the valid consent: %+v %v", k, err)
		}
		if k, err := s.GetConsent(ctx, ranOut.ID); err != nil || k.Status != ConsentExpired {
			t.Errorf("the consent that ran out an hour ago: %+v %v", k, err)
		}
		if again, err := s.Sweep(ctx, now, DefaultRetention); err != nil || again != (Swept{}) {
			t.Fatalf("a second Sweep: %+v %v", again, err)
		}
	})
}

// TestLease: of two instances on one database, one holds a job's lease
// until it expires or is released by time; the holder renews it.
func TestLease(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s1, s2 := db.open(t), db.open(t)
		now := time.Now().UTC().Truncate(time.Microsecond)
		lease := func(s Store, holder string, at time.Time) bool {
			t.Helper()
			ok, err := s.Lease(ctx, "sweep", holder, at, time.Minute)
			wantErr(t, "Lease", err, nil)
			return ok
		}
		if !lease(s1, "a", now) {
			t.Fatal("the first instance did not get a free lease")
		}
		if lease(s2, "b", now.Add(30*time.Second)) {
			t.Fatal("a second instance got a running lease")
		}
		if !lease(s1, "a", now.Add(30*time.Second)) {
			t.Fatal("the holder could not renew its lease")
		}
		if lease(s2, "b", now.Add(89*time.Second)) {
			t.Fatal("the renewed lease was taken before it ran out")
		}
		if !lease(s2, "b", now.Add(91*time.Second)) {
			t.Fatal("an expired lease was not taken over")
		}
		if ok, err := s1.Lease(ctx, "batch 2026-11-25 06:00", "a", now, time.Minute); err != nil || !ok {
			t.Fatalf("another job's lease: %v %v", ok, err)
		}
		if _, err := s1.Lease(ctx, "", "a", now, time.Minute); !errors.Is(err, ErrInvalid) {
			t.Fatalf("a lease without a name: %v", err)
		}
	})
}

// TestSweepCountsAbandoned: of the flows a sweep deletes, those still
// pending with a purpose Retention.Abandoned names are counted apart (and
// within Flows); ended flows and other purposes are not.
func TestSweepCountsAbandoned(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		now := time.Now().UTC().Truncate(time.Microsecond)
		for i, f := range []struct{ purpose, state string }{
			{"consent", FlowPending}, {"payment", FlowPending}, {"consent", FlowCompleted},
			{"consent", FlowFailed}, {"psu-consents", FlowPending},
		} {
			flow := &SCAFlow{TPP: "PSDNO-FSA-111111111", TPPSessionID: "s", RedirectURI: "https://tpp.example/cb", Purpose: f.purpose,
				State: f.state, CSRF: string(rune('a' + i)), ExpiresAt: now.Add(-25 * time.Hour)}
			wantErr(t, "CreateSCAFlow", s.CreateSCAFlow(ctx, flow), nil)
		}
		r := DefaultRetention
		r.Abandoned = []string{"consent", "payment"}
		got, err := s.Sweep(ctx, now, r)
		wantErr(t, "Sweep", err, nil)
		if got != (Swept{Flows: 5, Abandoned: 2}) {
			t.Fatalf("Sweep = %+v, want 5 flows of which 2 abandoned", got)
		}
	})
}

// TestSweepKeepsWhatIsValid: rows on both sides of each retention
// boundary, and rows still in force, are swept at once: everything still
// valid, and everything that ran out no longer ago than its retention,
// stays (with its consent's accounts); only what is past its retention
// goes, and the counts say exactly that.
func TestSweepKeepsWhatIsValid(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		now := time.Now().UTC().Truncate(time.Microsecond)
		var at atomic.Pointer[time.Time]
		at.Store(&now)
		db.opt.Clock = func() time.Time { return *at.Load() }
		s := db.open(t)
		const tpp = "PSDNO-FSA-111111111"
		c := mustCustomer(t, s, "01017012345", CustomerPrivate)
		a := mustAccount(t, s, c.ID, "NO9312345678903")
		r := DefaultRetention
		// How long ago each row ran out: negative is still in force.
		ago := func(retention time.Duration) []time.Duration {
			return []time.Duration{-180 * 24 * time.Hour, -time.Hour, -time.Second, time.Second, time.Hour,
				retention - time.Minute, retention - time.Second, retention + time.Second, retention + time.Hour, 3 * retention}
		}
		gone := func(d, retention time.Duration) bool { return d > retention }
		var want Swept
		type row struct {
			what string
			ago  time.Duration
			gone bool
			get  func() error
		}
		var rows []row
		for i, d := range ago(r.Flows) {
			f := &SCAFlow{TPP: tpp, TPPSessionID: "s", RedirectURI: "https://tpp.example/cb", Purpose: "consent",
				State: []string{FlowPending, FlowCompleted, FlowFailed}[i%3], CSRF: fmt.Sprint(i), ExpiresAt: now.Add(-d)}
			wantErr(t, "CreateSCAFlow", s.CreateSCAFlow(ctx, f), nil)
			rows = append(rows, row{"flow", d, gone(d, r.Flows), func() error { _, err := s.GetSCAFlow(ctx, f.ID); return err }})
			if gone(d, r.Flows) {
				want.Flows++
			}
		}
		for i, d := range ago(r.Sessions) {
			sid := fmt.Sprint("session-", i)
			wantErr(t, "CompleteSession", s.CompleteSession(ctx, &Session{TPP: tpp, TPPSessionID: sid, CustomerID: c.ID, ValidUntil: now.Add(-d)}), nil)
			rows = append(rows, row{"session", d, gone(d, r.Sessions), func() error { _, err := s.GetSession(ctx, tpp, sid); return err }})
			if gone(d, r.Sessions) {
				want.Sessions++
			}
		}
		for i, d := range ago(r.Consents) {
			k := &Consent{TPP: tpp, CustomerID: c.ID, AccountIDs: []string{a.ID},
				Status: []string{ConsentValid, ConsentExpired, ConsentRevokedByPSU, ConsentTerminatedByTPP}[i%4], ValidUntil: now.Add(-d)}
			wantErr(t, "CreateConsent", s.CreateConsent(ctx, k), nil)
			rows = append(rows, row{"consent", d, gone(d, r.Consents), func() error {
				got, err := s.GetConsent(ctx, k.ID)
				if err == nil && len(got.AccountIDs) != 1 {
					return fmt.Errorf("kept without its account: %+v", got)
				}
				return err
			}})
			if gone(d, r.Consents) {
				want.Consents++
			} else if k.Status == ConsentValid && d >= 0 {
				want.Expired++ // its validity ended: marked expired, kept
			}
		}
		for i, d := range ago(r.SealingKeys) {
			if d < 0 {
				continue // a key is never made in the future
			}
			made := now.Add(-d)
			at.Store(&made)
			k := &SealingKey{ID: fmt.Sprint("key-", i), Secret: make([]byte, 32)}
			wantErr(t, "AddSealingKey", s.AddSealingKey(ctx, k), nil)
			rows = append(rows, row{"sealing key", d, gone(d, r.SealingKeys), func() error {
				keys, err := s.SealingKeys(ctx)
				for _, got := range keys {
					if got.ID == k.ID {
						return err
					}
				}
				return ErrNotFound
			}})
			if gone(d, r.SealingKeys) {
				want.SealingKeys++
			}
		}
		at.Store(&now)

		got, err := s.Sweep(ctx, now, r)
		wantErr(t, "Sweep", err, nil)
		if got != want {
			t.Errorf("Sweep = %+v, want %+v", got, want)
		}
		for _, row := range rows {
			err := row.get()
			switch {
			case row.gone && !errors.Is(err, ErrNotFound):
				t.Errorf("a %s that ran out %v ago, past its retention, was kept: %v", row.what, row.ago, err)
			case !row.gone && err != nil:
				t.Errorf("a %s that runs out in %v (negative: ran out that long ago, within its retention) was swept: %v",
					row.what, -row.ago, err)
			}
		}
	})
}
