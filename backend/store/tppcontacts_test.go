package store

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestTPPContacts(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s1, s2 := db.open(t), db.open(t) // two instances on one database
		const tppA, tppB = "PSDNO-FSA-111111111", "PSDSE-FINA-222222"

		if _, err := s1.GetTPPContacts(ctx, tppA); !errors.Is(err, ErrNotFound) {
			t.Fatalf("GetTPPContacts before any: %v, want ErrNotFound", err)
		}
		wantErr(t, "DeleteTPPContacts before any", s1.DeleteTPPContacts(ctx, tppA), ErrNotFound)

		a := &TPPContacts{TPP: tppA, EmailAddresses: []string{"drift@tpp-a.example", "NOC@Tpp-A.example"}}
		wantErr(t, "PutTPPContacts", s1.PutTPPContacts(ctx, a), nil)
		if a.UpdatedAt.IsZero() || a.UpdatedAt.Location().String() != "UTC" || a.UpdatedAt.Nanosecond()%1000 != 0 {
			t.Fatalf("UpdatedAt %v: want a UTC instant in microseconds", a.UpdatedAt)
		}
		got, err := s2.GetTPPContacts(ctx, tppA)
		wantErr(t, "GetTPPContacts", err, nil)
		if !reflect.DeepEqual(got, a) {
			t.Fatalf("GetTPPContacts = %+v, want %+v", got, a)
		}
		if _, err := s2.GetTPPContacts(ctx, tppB); !errors.Is(err, ErrNotFound) {
			t.Fatalf("other TPP sees contacts: %v", err)
		}

		// A second registration replaces the list.
		b := &TPPContacts{TPP: tppB, EmailAddresses: []string{"ops@tpp-b.example"}}
		wantErr(t, "PutTPPContacts B", s2.PutTPPContacts(ctx, b), nil)
		a2 := &TPPContacts{TPP: tppA, EmailAddresses: []string{"incident@tpp-a.example"}}
		wantErr(t, "PutTPPContacts again", s2.PutTPPContacts(ctx, a2), nil)
		got, _ = s1.GetTPPContacts(ctx, tppA)
		if !reflect.DeepEqual(got, a2) || !a2.UpdatedAt.After(a.UpdatedAt) {
			t.Fatalf("after replacing: %+v, want %+v later than %v", got, a2, a.UpdatedAt)
		}

		// The sandbox reset keeps them.
		wantErr(t, "DeleteSandbox", s1.DeleteSandbox(ctx, tppB), nil)
		if got, err := s1.GetTPPContacts(ctx, tppB); err != nil || !reflect.DeepEqual(got, b) {
			t.Fatalf("after DeleteSandbox: %+v, %v", got, err)
		}

		wantErr(t, "DeleteTPPContacts", s1.DeleteTPPContacts(ctx, tppA), nil)
		if _, err := s2.GetTPPContacts(ctx, tppA); !errors.Is(err, ErrNotFound) {
			t.Fatalf("GetTPPContacts after delete: %v", err)
		}
		wantErr(t, "DeleteTPPContacts twice", s2.DeleteTPPContacts(ctx, tppA), ErrNotFound)
		if _, err := s2.GetTPPContacts(ctx, tppB); err != nil {
			t.Fatalf("deleting A's contacts removed B's: %v", err)
		}

		for name, c := range map[string]*TPPContacts{
			"no TPP":        {EmailAddresses: []string{"secret.person@tpp.example"}},
			"no address":    {TPP: tppA},
			"empty address": {TPP: tppA, EmailAddresses: []string{"secret.person@tpp.example", ""}},
		} {
			err := s1.PutTPPContacts(ctx, c)
			wantErr(t, name, err, ErrInvalid)
			if strings.Contains(err.Error(), "secret.person") {
				t.Fatalf("%s: the error quotes an address: %v", name, err)
			}
		}
	})
}

// TestListTPPContacts: the operators' list holds every TPP's addresses, by
// TPP, on either instance.
func TestListTPPContacts(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s1, s2 := db.open(t), db.open(t)
		if got, err := s1.ListTPPContacts(ctx); err != nil || len(got) != 0 {
			t.Fatalf("ListTPPContacts before any: %v %v", got, err)
		}
		b := &TPPContacts{TPP: "PSDSE-FINA-222222", EmailAddresses: []string{"ops@b.example"}}
		a := &TPPContacts{TPP: "PSDNO-FSA-111111111", EmailAddresses: []string{"drift@a.example", "noc@a.example"}}
		wantErr(t, "PutTPPContacts b", s1.PutTPPContacts(ctx, b), nil)
		wantErr(t, "PutTPPContacts a", s1.PutTPPContacts(ctx, a), nil)
		got, err := s2.ListTPPContacts(ctx)
		wantErr(t, "ListTPPContacts", err, nil)
		if !reflect.DeepEqual(got, []TPPContacts{*a, *b}) {
			t.Fatalf("ListTPPContacts = %+v, want a then b", got)
		}
	})
}
