package store

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

func TestSessions(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		c1 := mustCustomer(t, s, "01017012345", CustomerPrivate)
		c2 := mustCustomer(t, s, "02027012345", CustomerPrivate)
		corp := mustCustomer(t, s, "912345678", CustomerCorporate)
		ag := mustAgreement(t, s, corp.ID)
		const tppA, tppB = "PSDNO-FSA-111111111", "PSDSE-FINA-222222"
		until := time.Date(2025, 3, 1, 13, 0, 0, 123456789, time.UTC)

		complete := func(tpp, id, customer string) *Session {
			t.Helper()
			ses := &Session{TPP: tpp, TPPSessionID: id, CustomerID: customer, Context: string(CustomerPrivate),
				ValidUntil: until, Invalidated: true}
			wantErr(t, "CompleteSession "+id, s.CompleteSession(ctx, ses), nil)
			return ses
		}
		invalidated := func(tpp, id string) bool {
			t.Helper()
			ses, err := s.GetSession(ctx, tpp, id)
			wantErr(t, "GetSession "+id, err, nil)
			return ses.Invalidated
		}

		first := complete(tppA, "s1", c1.ID)
		if first.Invalidated || first.ValidUntil.Nanosecond() != 123456000 {
			t.Fatalf("CompleteSession left %+v: want valid, ValidUntil in microseconds", first)
		}
		got, err := s.GetSession(ctx, tppA, "s1")
		wantErr(t, "GetSession", err, nil)
		if !reflect.DeepEqual(got, first) {
			t.Fatalf("GetSession = %+v, want %+v", got, first)
		}
		complete(tppB, "s1", c1.ID) // same id, other TPP
		complete(tppA, "c2", c2.ID) // other customer
		complete(tppA, "s2", c1.ID) // supersedes tppA/s1
		corpSes := &Session{TPP: tppB, TPPSessionID: "corp", CustomerID: c1.ID, Context: string(CustomerCorporate),
			AgreementID: ag.ID, ValidUntil: until}
		wantErr(t, "CompleteSession corporate", s.CompleteSession(ctx, corpSes), nil) // supersedes tppB/s1
		got, _ = s.GetSession(ctx, tppB, "corp")
		if !reflect.DeepEqual(got, corpSes) {
			t.Fatalf("GetSession corporate = %+v, want %+v", got, corpSes)
		}

		states := []struct {
			tpp, id string
			want    bool
		}{
			{tppA, "s1", true}, {tppA, "s2", false}, {tppA, "c2", false}, {tppB, "s1", true}, {tppB, "corp", false},
		}
		for _, st := range states {
			if got := invalidated(st.tpp, st.id); got != st.want {
				t.Fatalf("%s/%s invalidated = %v, want %v", st.tpp, st.id, got, st.want)
			}
		}

		// Completing SCA again under an old id revives it and retires the other.
		complete(tppA, "s1", c1.ID)
		if invalidated(tppA, "s1") || !invalidated(tppA, "s2") {
			t.Fatal("re-completing s1 did not make it the one valid session")
		}

		_, err = s.GetSession(ctx, tppA, "nope")
		wantErr(t, "GetSession unknown", err, ErrNotFound)
		errs := []struct {
			name string
			ses  Session
			want error
		}{
			{"unknown customer", Session{TPP: tppA, TPPSessionID: "x", CustomerID: "enc!!nope", ValidUntil: until}, ErrNotFound},
			{"unknown agreement", Session{TPP: tppA, TPPSessionID: "x", CustomerID: c2.ID, AgreementID: "enc!!nope",
				ValidUntil: until}, ErrNotFound},
			{"empty session id", Session{TPP: tppA, CustomerID: c2.ID, ValidUntil: until}, ErrInvalid},
			{"no ValidUntil", Session{TPP: tppA, TPPSessionID: "x", CustomerID: c2.ID}, ErrInvalid},
			{"bad context", Session{TPP: tppA, TPPSessionID: "x", CustomerID: c2.ID, Context: "x", ValidUntil: until}, ErrInvalid},
		}
		for _, tt := range errs {
			wantErr(t, tt.name, s.CompleteSession(ctx, &tt.ses), tt.want)
		}
		if invalidated(tppA, "c2") {
			t.Fatal("a failed CompleteSession invalidated c2's session")
		}
	})
}

func TestCompleteSessionRace(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s1, s2 := db.open(t), db.open(t)
		c := mustCustomer(t, s1, "01017012345", CustomerPrivate)
		const n = 10
		concurrently(t, n, func(i int) (string, error) {
			s := s1
			if i%2 == 1 {
				s = s2
			}
			return "", s.CompleteSession(ctx, &Session{TPP: "PSDNO-FSA-111111111", TPPSessionID: fmt.Sprint("s", i),
				CustomerID: c.ID, ValidUntil: time.Now().Add(time.Hour)})
		})
		valid := 0
		for i := 0; i < n; i++ {
			ses, err := s1.GetSession(ctx, "PSDNO-FSA-111111111", fmt.Sprint("s", i))
			wantErr(t, "GetSession", err, nil)
			if !ses.Invalidated {
				valid++
			}
		}
		if valid != 1 {
			t.Fatalf("%d of %d concurrently completed sessions are valid, want exactly 1", valid, n)
		}
	})
}
