package store

import (
	"sync"
	"testing"

	"github.com/google/uuid"
)

func TestPSUID(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		c1 := mustCustomer(t, s, "01017012345", CustomerPrivate)
		c2 := mustCustomer(t, s, "02027012345", CustomerPrivate)
		const tppA, tppB = "PSDNO-FSA-111111111", "PSDSE-FINA-222222"

		id := func(tpp, customer string) string {
			t.Helper()
			v, err := s.PSUID(ctx, tpp, customer)
			wantErr(t, "PSUID", err, nil)
			u, err := uuid.Parse(v)
			if err != nil || u.Version() != 4 || u.String() != v {
				t.Fatalf("PSUID = %q: want a canonical UUID v4", v)
			}
			return v
		}
		a1 := id(tppA, c1.ID)
		if again := id(tppA, c1.ID); again != a1 {
			t.Fatalf("PSUID not stable: %q then %q", a1, again)
		}
		b1, a2 := id(tppB, c1.ID), id(tppA, c2.ID)
		if b1 == a1 || a2 == a1 || a2 == b1 {
			t.Fatalf("PSUIDs not distinct across TPPs and customers: %q %q %q", a1, b1, a2)
		}

		got, err := s.CustomerByPSUID(ctx, tppA, a1)
		wantErr(t, "CustomerByPSUID", err, nil)
		if got.ID != c1.ID || got.Number != c1.Number {
			t.Fatalf("CustomerByPSUID = %+v, want c1", got)
		}
		_, err = s.CustomerByPSUID(ctx, tppB, a1)
		wantErr(t, "CustomerByPSUID with another TPP's PSU-ID", err, ErrNotFound)
		_, err = s.CustomerByPSUID(ctx, tppA, uuid.NewString())
		wantErr(t, "CustomerByPSUID unknown", err, ErrNotFound)
		_, err = s.PSUID(ctx, tppA, "enc!!nope")
		wantErr(t, "PSUID unknown customer", err, ErrNotFound)
		_, err = s.PSUID(ctx, "", c1.ID)
		wantErr(t, "PSUID empty TPP", err, ErrInvalid)

		// Concurrent first calls agree on one value.
		const tppC = "PSDDK-DFSA-333333"
		vals := concurrently(t, 20, func(int) (string, error) { return s.PSUID(ctx, tppC, c2.ID) })
		for i, v := range vals {
			if v != vals[0] {
				t.Fatalf("goroutine %d got PSU-ID %q, goroutine 0 %q", i, v, vals[0])
			}
		}
	})
}

func TestCorporateID(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		corp := mustCustomer(t, s, "912345678", CustomerCorporate)
		psu := mustCustomer(t, s, "01017012345", CustomerPrivate)
		acct := mustAccount(t, s, corp.ID, "NO9312345678903")
		ag1 := mustAgreement(t, s, corp.ID, Engagement{CustomerID: psu.ID, AccountID: acct.ID, Roles: []string{RoleView}})
		ag2 := mustAgreement(t, s, corp.ID)
		const tppA, tppB = "PSDNO-FSA-111111111", "PSDSE-FINA-222222"

		a1, err := s.CorporateID(ctx, tppA, ag1.ID)
		wantErr(t, "CorporateID", err, nil)
		if u, err := uuid.Parse(a1); err != nil || u.Version() != 4 {
			t.Fatalf("CorporateID = %q: want a UUID v4", a1)
		}
		again, _ := s.CorporateID(ctx, tppA, ag1.ID)
		b1, _ := s.CorporateID(ctx, tppB, ag1.ID)
		a2, _ := s.CorporateID(ctx, tppA, ag2.ID)
		if again != a1 || b1 == a1 || a2 == a1 || b1 == "" || a2 == "" {
			t.Fatalf("CorporateID: %q, again %q, other TPP %q, other agreement %q", a1, again, b1, a2)
		}
		got, err := s.AgreementByCorporateID(ctx, tppA, a1)
		wantErr(t, "AgreementByCorporateID", err, nil)
		if got.ID != ag1.ID || len(got.Engagements) != 1 {
			t.Fatalf("AgreementByCorporateID = %+v, want ag1 with its engagement", got)
		}
		_, err = s.AgreementByCorporateID(ctx, tppB, a1)
		wantErr(t, "AgreementByCorporateID with another TPP's id", err, ErrNotFound)
		_, err = s.CorporateID(ctx, tppA, "enc!!nope")
		wantErr(t, "CorporateID unknown agreement", err, ErrNotFound)

		vals := concurrently(t, 20, func(int) (string, error) { return s.CorporateID(ctx, "PSDDK-DFSA-333333", ag2.ID) })
		for i, v := range vals {
			if v != vals[0] {
				t.Fatalf("goroutine %d got corporate id %q, goroutine 0 %q", i, v, vals[0])
			}
		}
	})
}

// concurrently runs fn(i) for i in [0, n) at once and returns the results;
// any error fails the test.
func concurrently(t testing.TB, n int, fn func(i int) (string, error)) []string {
	t.Helper()
	out := make([]string, n)
	errs := make([]error, n)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := 0; i < n; i++ {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			out[i], errs[i] = fn(i)
		}()
	}
	start.Done()
	done.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("goroutine %d: %v", i, err)
		}
	}
	return out
}
