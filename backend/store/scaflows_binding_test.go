package store

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestSCAFlowBinding: of concurrent identifications (pending -> pending,
// each binding the flow to its own browser) exactly one wins, on two store
// instances; a bound flow is updated only by its own browser's binding and
// never unbound.
func TestSCAFlowBinding(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s1, s2 := db.open(t), db.open(t)
		c := mustCustomer(t, s1, "01017012345", CustomerPrivate)
		f := &SCAFlow{TPP: "PSDNO-FSA-111111111", Purpose: "consent", CSRF: "start"}
		wantErr(t, "CreateSCAFlow", s1.CreateSCAFlow(ctx, f), nil)
		results := concurrently(t, 10, func(i int) (string, error) {
			g := *f
			g.CustomerID, g.SessionHash, g.BindKey, g.CSRF = c.ID, fmt.Sprint("hash-", i), fmt.Sprint("key-", i), fmt.Sprint("csrf-", i)
			s := s1
			if i%2 == 1 {
				s = s2
			}
			err := s.UpdateSCAFlow(ctx, &g, FlowPending)
			switch {
			case err == nil:
				return g.SessionHash, nil
			case errors.Is(err, ErrConflict):
				return "", nil
			}
			return "", err
		})
		var winners []string
		for _, r := range results {
			if r != "" {
				winners = append(winners, r)
			}
		}
		if len(winners) != 1 {
			t.Fatalf("%d identifications won (%v), want exactly 1", len(winners), winners)
		}
		got, err := s2.GetSCAFlow(ctx, f.ID)
		wantErr(t, "GetSCAFlow", err, nil)
		if got.SessionHash != winners[0] || got.BindKey != "key-"+strings.TrimPrefix(winners[0], "hash-") {
			t.Fatalf("stored flow %+v: want the winner %q's binding", got, winners[0])
		}
		// The bound browser moves the flow on; nobody re-binds or unbinds.
		next := *got
		next.Context = string(CustomerPrivate)
		wantErr(t, "progress of the bound browser", s1.UpdateSCAFlow(ctx, &next, FlowPending), nil)
		other := next
		other.SessionHash = "hash-other"
		wantErr(t, "re-binding", s2.UpdateSCAFlow(ctx, &other, FlowPending), ErrConflict)
		unbound := next
		unbound.SessionHash = ""
		wantErr(t, "unbinding", s2.UpdateSCAFlow(ctx, &unbound, FlowPending), ErrConflict)
		if got, _ := s1.GetSCAFlow(ctx, f.ID); got.SessionHash != winners[0] || got.Context != string(CustomerPrivate) {
			t.Fatalf("refused updates changed the flow: %+v", got)
		}
	})
}

// TestSCAFlowClaimAndOutcome: a flow is claimed (pending -> completing) by
// exactly one of concurrent claimants; only the claimant's outcome is
// recorded, and read back.
func TestSCAFlowClaimAndOutcome(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s1, s2 := db.open(t), db.open(t)
		f := &SCAFlow{TPP: "PSDNO-FSA-111111111", Purpose: "payment", CSRF: "x"}
		wantErr(t, "CreateSCAFlow", s1.CreateSCAFlow(ctx, f), nil)
		results := concurrently(t, 8, func(i int) (string, error) {
			g := *f
			g.State = FlowCompleting
			s := s1
			if i%2 == 1 {
				s = s2
			}
			switch err := s.UpdateSCAFlow(ctx, &g, FlowPending); {
			case err == nil:
				return "won", nil
			case errors.Is(err, ErrConflict):
				return "", nil
			default:
				return "", err
			}
		})
		won := 0
		for _, r := range results {
			if r == "won" {
				won++
			}
		}
		if won != 1 {
			t.Fatalf("%d claims won, want exactly 1", won)
		}
		// A late failure (a duplicate's, or a timeout's) cannot overwrite it.
		late := *f
		late.State, late.Outcome = FlowFailed, "code=STATUS_INVALID"
		wantErr(t, "fail a claimed flow from pending", s2.UpdateSCAFlow(ctx, &late, FlowPending), ErrConflict)
		done := *f
		done.State, done.Outcome = FlowCompleted, "context=PRIVATE&psu-id=p"
		wantErr(t, "complete the claimed flow", s1.UpdateSCAFlow(ctx, &done, FlowCompleting), nil)
		late.State = FlowFailed
		wantErr(t, "fail a completed flow", s2.UpdateSCAFlow(ctx, &late, FlowCompleting), ErrConflict)
		got, err := s2.GetSCAFlow(ctx, f.ID)
		wantErr(t, "GetSCAFlow", err, nil)
		if got.State != FlowCompleted || got.Outcome != done.Outcome {
			t.Fatalf("stored flow %+v: want completed with %q", got, done.Outcome)
		}
	})
}

// TestSCAFlowAttempts: identification attempts are counted atomically
// (every one of concurrent attempts, on two instances), only while the flow
// is pending, and no other update resets the count.
func TestSCAFlowAttempts(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s1, s2 := db.open(t), db.open(t)
		f := &SCAFlow{TPP: "PSDNO-FSA-111111111", Purpose: "consent", CSRF: "x"}
		wantErr(t, "CreateSCAFlow", s1.CreateSCAFlow(ctx, f), nil)
		const n = 20
		results := concurrently(t, n, func(i int) (string, error) {
			s := s1
			if i%2 == 1 {
				s = s2
			}
			k, err := s.CountSCAFlowAttempt(ctx, f.ID)
			return fmt.Sprintf("%03d", k), err
		})
		sort.Strings(results)
		for i, r := range results {
			if r != fmt.Sprintf("%03d", i+1) {
				t.Fatalf("counts %v: want each of 1..%d once", results, n)
			}
		}
		stale := *f // read before the attempts: IdentifyAttempts 0
		stale.CSRF = "y"
		wantErr(t, "UpdateSCAFlow", s2.UpdateSCAFlow(ctx, &stale, FlowPending), nil)
		if got, _ := s1.GetSCAFlow(ctx, f.ID); got.IdentifyAttempts != n {
			t.Fatalf("IdentifyAttempts %d after an update from a stale read, want %d", got.IdentifyAttempts, n)
		}
		stale.State = FlowFailed
		wantErr(t, "fail", s2.UpdateSCAFlow(ctx, &stale, FlowPending), nil)
		_, err := s1.CountSCAFlowAttempt(ctx, f.ID)
		wantErr(t, "CountSCAFlowAttempt on a failed flow", err, ErrConflict)
		_, err = s1.CountSCAFlowAttempt(ctx, "enc!!nope")
		wantErr(t, "CountSCAFlowAttempt on an unknown flow", err, ErrNotFound)
	})
}

// TestSCAFlowMigration5 keeps the flows migration 4 left: the table is
// rebuilt with the new state and columns, its rows and indexes kept.
func TestSCAFlowMigration5(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t).(*sqlStore)
		c := mustCustomer(t, s, "01017012345", CustomerPrivate)
		// Put the table back as migrations 1-4 made it, with a flow in it
		// (migrations 11 and 12 then add their columns again).
		var v4 string
		for _, stmt := range migrations[0].stmts {
			if strings.Contains(stmt, "CREATE TABLE sca_flows (") {
				v4 = stmt
			}
		}
		expires := time.Date(2025, 3, 1, 12, 15, 0, 0, time.UTC)
		for _, stmt := range []string{`DROP TABLE sca_flows`, s.d.ddl(v4),
			`DELETE FROM schema_migrations WHERE version IN (5, 11, 12)`} {
			if _, err := s.db.ExecContext(ctx, stmt); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
		if _, err := s.db.ExecContext(ctx, `INSERT INTO sca_flows (id, tpp, tpp_session_id, redirect_uri, purpose,
			resource_id, state, csrf, customer_id, context, agreement_id, created_at, expires_at)
			VALUES ('enc!!old', 'PSDNO-FSA-1', 's1', 'https://tpp.example/cb', 'consent', '', 'pending', 'tok', $1, 'PRIVATE', NULL, $2, $3)`,
			c.ID, s.d.instant(expires.Add(-time.Minute)), s.d.instant(expires)); err != nil {
			t.Fatal(err)
		}
		s2 := db.open(t) // migrates again
		got, err := s2.GetSCAFlow(ctx, "enc!!old")
		wantErr(t, "GetSCAFlow after migration 5", err, nil)
		want := SCAFlow{ID: "enc!!old", TPP: "PSDNO-FSA-1", TPPSessionID: "s1", RedirectURI: "https://tpp.example/cb",
			Purpose: "consent", State: FlowPending, CSRF: "tok", CustomerID: c.ID, Context: "PRIVATE",
			CreatedAt: expires.Add(-time.Minute), ExpiresAt: expires}
		if *got != want {
			t.Fatalf("migrated flow %+v, want %+v", *got, want)
		}
		got.State = FlowCompleting
		wantErr(t, "the new state on the migrated table", s2.UpdateSCAFlow(ctx, got, FlowPending), nil)
		// The customer cascade still reaches the rebuilt table.
		wantErr(t, "DeleteCustomer", s2.DeleteCustomer(ctx, c.ID), nil)
		_, err = s2.GetSCAFlow(ctx, "enc!!old")
		wantErr(t, "GetSCAFlow after the customer's deletion", err, ErrNotFound)
	})
}

// TestSCAFlowLogin: a pending login is stored with the flow, and taken
// exactly once of many concurrent answers carrying its state (two
// instances); a taken, replaced or wrong state, and a flow no longer
// pending, get ErrConflict.
func TestSCAFlowLogin(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s1, s2 := db.open(t), db.open(t)
		f := &SCAFlow{TPP: "PSDNO-FSA-111111111", TPPName: "Test TPP AS", Purpose: "consent", CSRF: "x", AppPreferred: true}
		wantErr(t, "CreateSCAFlow", s1.CreateSCAFlow(ctx, f), nil)
		f.LoginState, f.Login = "hash-1", `{"nonce":"n1"}`
		wantErr(t, "UpdateSCAFlow", s1.UpdateSCAFlow(ctx, f, FlowPending), nil)
		got, err := s2.GetSCAFlow(ctx, f.ID)
		wantErr(t, "GetSCAFlow", err, nil)
		if !got.AppPreferred || got.LoginState != "hash-1" || got.Login != f.Login || got.TPPName != "Test TPP AS" {
			t.Fatalf("stored flow %+v: want AppPreferred, LoginState hash-1, Login %s", got, f.Login)
		}
		// A second login replaces the first: the first's state is dead.
		f.LoginState, f.Login = "hash-2", `{"nonce":"n2"}`
		wantErr(t, "UpdateSCAFlow", s1.UpdateSCAFlow(ctx, f, FlowPending), nil)
		_, err = s2.TakeSCAFlowLogin(ctx, f.ID, "hash-1")
		wantErr(t, "take a replaced login", err, ErrConflict)
		_, err = s2.TakeSCAFlowLogin(ctx, f.ID, "")
		wantErr(t, "take no state", err, ErrConflict)
		const n = 10
		results := concurrently(t, n, func(i int) (string, error) {
			s := s1
			if i%2 == 1 {
				s = s2
			}
			login, err := s.TakeSCAFlowLogin(ctx, f.ID, "hash-2")
			if errors.Is(err, ErrConflict) {
				return "conflict", nil
			}
			return login, err
		})
		sort.Strings(results)
		want := append([]string{f.Login}, slices.Repeat([]string{"conflict"}, n-1)...)
		sort.Strings(want)
		if !slices.Equal(results, want) {
			t.Fatalf("concurrent takes %v: want the login once, conflicts otherwise", results)
		}
		if got, _ := s1.GetSCAFlow(ctx, f.ID); got.LoginState != "" {
			t.Fatalf("after the take: LoginState %q, want empty", got.LoginState)
		}
		f.LoginState, f.Login = "hash-3", "{}"
		wantErr(t, "UpdateSCAFlow", s1.UpdateSCAFlow(ctx, f, FlowPending), nil)
		failed := *f
		failed.State = FlowFailed
		wantErr(t, "fail", s1.UpdateSCAFlow(ctx, &failed, FlowPending), nil)
		_, err = s2.TakeSCAFlowLogin(ctx, f.ID, "hash-3")
		wantErr(t, "take the login of a failed flow", err, ErrConflict)
		_, err = s2.TakeSCAFlowLogin(ctx, "enc!!nope", "hash-3")
		wantErr(t, "take on an unknown flow", err, ErrNotFound)
	})
}
