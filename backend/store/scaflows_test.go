package store

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
)

func TestSCAFlows(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		c := mustCustomer(t, s, "01017012345", CustomerPrivate)
		corp := mustCustomer(t, s, "912345678", CustomerCorporate)
		ag := mustAgreement(t, s, corp.ID)
		f := &SCAFlow{TPP: "PSDNO-FSA-111111111", TPPSessionID: "3f1c7a0e-1", RedirectURI: "https://tpp.example/cb?x=1",
			Purpose: "consent", CSRF: "csrf-1", ExpiresAt: time.Date(2025, 3, 1, 12, 15, 0, 999, time.Local)}
		wantErr(t, "CreateSCAFlow", s.CreateSCAFlow(ctx, f), nil)
		if f.State != FlowPending || f.ID == "" || f.ExpiresAt.Location() != time.UTC || f.ExpiresAt.Nanosecond() != 0 {
			t.Fatalf("CreateSCAFlow left %+v: want pending, an ID, ExpiresAt in UTC microseconds", f)
		}
		got, err := s.GetSCAFlow(ctx, f.ID)
		wantErr(t, "GetSCAFlow", err, nil)
		if !reflect.DeepEqual(got, f) {
			t.Fatalf("GetSCAFlow = %+v, want %+v", got, f)
		}

		step := *got
		step.CustomerID, step.Context, step.AgreementID = corp.ID, string(CustomerCorporate), ag.ID
		wantErr(t, "UpdateSCAFlow pending->pending", s.UpdateSCAFlow(ctx, &step, FlowPending), nil)
		got, _ = s.GetSCAFlow(ctx, f.ID)
		if !reflect.DeepEqual(got, &step) {
			t.Fatalf("after update GetSCAFlow = %+v, want %+v", got, step)
		}
		step.CustomerID, step.AgreementID, step.Context, step.State = c.ID, "", string(CustomerPrivate), FlowCompleted
		wantErr(t, "UpdateSCAFlow pending->completed", s.UpdateSCAFlow(ctx, &step, FlowPending), nil)
		got, _ = s.GetSCAFlow(ctx, f.ID)
		if !reflect.DeepEqual(got, &step) {
			t.Fatalf("after completion GetSCAFlow = %+v, want %+v", got, step)
		}

		late := step
		late.State = FlowFailed
		errs := []struct {
			name string
			f    SCAFlow
			from string
			want error
		}{
			{"lost compare-and-set", late, FlowPending, ErrConflict},
			{"unknown flow", SCAFlow{ID: "enc!!nope", State: FlowFailed}, FlowPending, ErrNotFound},
			{"unknown state", SCAFlow{ID: f.ID, State: "done"}, FlowCompleted, ErrInvalid},
			{"unknown customer", SCAFlow{ID: f.ID, State: FlowFailed, CustomerID: "enc!!nope"}, FlowCompleted, ErrNotFound},
		}
		for _, tt := range errs {
			wantErr(t, tt.name, s.UpdateSCAFlow(ctx, &tt.f, tt.from), tt.want)
		}
		got, _ = s.GetSCAFlow(ctx, f.ID)
		if got.State != FlowCompleted {
			t.Fatalf("refused updates changed the flow: %+v", got)
		}
		_, err = s.GetSCAFlow(ctx, "enc!!nope")
		wantErr(t, "GetSCAFlow unknown", err, ErrNotFound)
		wantErr(t, "CreateSCAFlow unknown customer",
			s.CreateSCAFlow(ctx, &SCAFlow{TPP: "x", CustomerID: "enc!!nope"}), ErrNotFound)
		wantErr(t, "CreateSCAFlow bad context", s.CreateSCAFlow(ctx, &SCAFlow{TPP: "x", Context: "RETAIL"}), ErrInvalid)
	})
}

func TestSCAFlowCompareAndSetRace(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s1, s2 := db.open(t), db.open(t) // two instances race like two backends
		c := mustCustomer(t, s1, "01017012345", CustomerPrivate)
		f := &SCAFlow{TPP: "PSDNO-FSA-111111111", Purpose: "consent", CSRF: "start"}
		wantErr(t, "CreateSCAFlow", s1.CreateSCAFlow(ctx, f), nil)
		results := concurrently(t, 10, func(i int) (string, error) {
			g := *f
			g.State, g.CustomerID, g.CSRF = FlowCompleted, c.ID, fmt.Sprint("winner-", i)
			s := s1
			if i%2 == 1 {
				s = s2
			}
			err := s.UpdateSCAFlow(ctx, &g, FlowPending)
			switch {
			case err == nil:
				return g.CSRF, nil
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
			t.Fatalf("%d updates from pending won (%v), want exactly 1", len(winners), winners)
		}
		got, err := s2.GetSCAFlow(ctx, f.ID)
		wantErr(t, "GetSCAFlow", err, nil)
		if got.State != FlowCompleted || got.CSRF != winners[0] {
			t.Fatalf("stored flow %+v: want the winner %q's write", got, winners[0])
		}
	})
}

// TestSCAFlowPresetID: a flow whose id was chosen before it was stored (a
// sealed link) keeps it; a second create with that id is ErrConflict.
func TestSCAFlowPresetID(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		id := NewID()
		f := SCAFlow{ID: id, TPP: "PSDNO-FSA-1", TPPSessionID: "s1", RedirectURI: "https://tpp.example/cb",
			Purpose: "consent", CSRF: "tok", ExpiresAt: time.Now().Add(time.Minute)}
		g := f
		wantErr(t, "CreateSCAFlow with an id", s.CreateSCAFlow(ctx, &f), nil)
		if f.ID != id {
			t.Fatalf("stored as %s, want %s", f.ID, id)
		}
		wantErr(t, "CreateSCAFlow with a taken id", s.CreateSCAFlow(ctx, &g), ErrConflict)
	})
}
