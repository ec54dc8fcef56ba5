package store

import (
	"reflect"
	"testing"
)

func TestAgreements(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		corp := mustCustomer(t, s, "912345678", CustomerCorporate)
		p1 := mustCustomer(t, s, "01017012345", CustomerPrivate)
		p2 := mustCustomer(t, s, "02027012345", CustomerPrivate)
		a1 := mustAccount(t, s, corp.ID, "NO9312345678903")
		a2 := mustAccount(t, s, corp.ID, "NO0212345678901")
		ag1 := mustAgreement(t, s, corp.ID,
			Engagement{CustomerID: p1.ID, AccountID: a1.ID, Roles: []string{RoleView, RoleRegister}},
			Engagement{CustomerID: p2.ID, AccountID: a2.ID, Roles: []string{RoleView}},
			Engagement{CustomerID: p1.ID, AccountID: a2.ID, Roles: []string{}})
		ag2 := mustAgreement(t, s, corp.ID, Engagement{CustomerID: p1.ID, AccountID: a2.ID, Roles: []string{RoleView}})

		got, err := s.GetAgreement(ctx, ag1.ID)
		wantErr(t, "GetAgreement", err, nil)
		if !reflect.DeepEqual(got, ag1) {
			t.Fatalf("GetAgreement = %+v, want %+v", got, ag1)
		}
		lists := []struct {
			customer string
			want     []*Agreement
		}{
			{p1.ID, []*Agreement{ag1, ag2}},
			{p2.ID, []*Agreement{ag1}},
			{corp.ID, nil}, // owning is not being engaged
		}
		for _, tt := range lists {
			got, err := s.ListAgreementsOf(ctx, tt.customer)
			wantErr(t, "ListAgreementsOf", err, nil)
			if len(got) != len(tt.want) {
				t.Fatalf("ListAgreementsOf = %d agreements, want %d", len(got), len(tt.want))
			}
			for i := range got {
				if !reflect.DeepEqual(&got[i], tt.want[i]) {
					t.Fatalf("ListAgreementsOf[%d] = %+v, want %+v", i, got[i], *tt.want[i])
				}
			}
		}

		errs := []struct {
			name string
			a    Agreement
			want error
		}{
			{"unknown owner", Agreement{OwnerID: "enc!!nope"}, ErrNotFound},
			{"unknown account", Agreement{OwnerID: corp.ID, Engagements: []Engagement{
				{CustomerID: p2.ID, AccountID: a1.ID, Roles: []string{RoleView}},
				{CustomerID: p2.ID, AccountID: "enc!!nope", Roles: []string{RoleView}}}}, ErrNotFound},
			{"unknown customer", Agreement{OwnerID: corp.ID, Engagements: []Engagement{
				{CustomerID: "enc!!nope", AccountID: a1.ID}}}, ErrNotFound},
			{"same engagement twice", Agreement{OwnerID: corp.ID, Engagements: []Engagement{
				{CustomerID: p2.ID, AccountID: a1.ID}, {CustomerID: p2.ID, AccountID: a1.ID}}}, ErrConflict},
			{"unknown role", Agreement{OwnerID: corp.ID, Engagements: []Engagement{
				{CustomerID: p2.ID, AccountID: a1.ID, Roles: []string{"ADMIN"}}}}, ErrInvalid},
		}
		for _, tt := range errs {
			wantErr(t, tt.name, s.CreateAgreement(ctx, &tt.a), tt.want)
		}
		// The failed agreements naming p2 left nothing behind.
		list, err := s.ListAgreementsOf(ctx, p2.ID)
		wantErr(t, "ListAgreementsOf", err, nil)
		if len(list) != 1 || list[0].ID != ag1.ID {
			t.Fatalf("ListAgreementsOf(p2) after failed creates = %+v, want ag1 only", list)
		}
		_, err = s.GetAgreement(ctx, "enc!!nope")
		wantErr(t, "GetAgreement unknown", err, ErrNotFound)
	})
}

// TestAgreementByNameAndSetEngagements: an operator import finds an
// agreement by its owner and name and replaces its engagements at once;
// an unknown agreement and a customer engaged twice on one account are
// refused, leaving the engagements as they were.
func TestAgreementByNameAndSetEngagements(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		corp := mustCustomer(t, s, "912345678", CustomerCorporate)
		p1 := mustCustomer(t, s, "01017012345", CustomerPrivate)
		p2 := mustCustomer(t, s, "02027012345", CustomerPrivate)
		a1 := mustAccount(t, s, corp.ID, "NO9312345678903")
		ag := mustAgreement(t, s, corp.ID, Engagement{CustomerID: p1.ID, AccountID: a1.ID, Roles: []string{RoleView}})

		got, err := s.AgreementByName(ctx, corp.ID, "Agreement")
		wantErr(t, "AgreementByName", err, nil)
		if !reflect.DeepEqual(got, ag) {
			t.Fatalf("AgreementByName = %+v, want %+v", got, ag)
		}
		_, err = s.AgreementByName(ctx, corp.ID, "Another")
		wantErr(t, "AgreementByName of another name", err, ErrNotFound)
		_, err = s.AgreementByName(ctx, p1.ID, "Agreement")
		wantErr(t, "AgreementByName of another owner", err, ErrNotFound)

		want := []Engagement{{CustomerID: p2.ID, AccountID: a1.ID, Roles: []string{RoleView, RoleRegister}}}
		wantErr(t, "SetEngagements", s.SetEngagements(ctx, ag.ID, want), nil)
		got, _ = s.GetAgreement(ctx, ag.ID)
		if !reflect.DeepEqual(got.Engagements, want) {
			t.Fatalf("engagements after SetEngagements = %+v, want %+v", got.Engagements, want)
		}
		wantErr(t, "SetEngagements twice on one account", s.SetEngagements(ctx, ag.ID,
			[]Engagement{{CustomerID: p1.ID, AccountID: a1.ID}, {CustomerID: p1.ID, AccountID: a1.ID}}), ErrConflict)
		got, _ = s.GetAgreement(ctx, ag.ID)
		if !reflect.DeepEqual(got.Engagements, want) {
			t.Fatalf("engagements after a refused SetEngagements = %+v, want %+v", got.Engagements, want)
		}
		wantErr(t, "SetEngagements of an unknown agreement", s.SetEngagements(ctx, "enc!!nope", want), ErrNotFound)
	})
}
