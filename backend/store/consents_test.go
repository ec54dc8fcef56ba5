package store

import (
	"reflect"
	"testing"
	"time"
)

func TestConsents(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		c := mustCustomer(t, s, "01017012345", CustomerPrivate)
		acct := mustAccount(t, s, c.ID, "NO9312345678903")
		card := mustAccount(t, s, c.ID, "")
		const tppA, tppB = "PSDNO-FSA-111111111", "PSDSE-FINA-222222"
		sca := time.Date(2025, 3, 1, 12, 0, 0, 5000, time.UTC)

		first := &Consent{TPP: tppA, CustomerID: c.ID, Context: string(CustomerPrivate),
			AccountIDs: []string{card.ID, acct.ID, card.ID}, Status: ConsentValid,
			ValidUntil: sca.AddDate(0, 0, 180), LastSCA: sca}
		wantErr(t, "CreateConsent", s.CreateConsent(ctx, first), nil)
		if !reflect.DeepEqual(first.AccountIDs, []string{card.ID, acct.ID}) {
			t.Fatalf("AccountIDs = %v, want card, acct (repeat dropped)", first.AccountIDs)
		}
		got, err := s.GetConsent(ctx, first.ID)
		wantErr(t, "GetConsent", err, nil)
		if !reflect.DeepEqual(got, first) {
			t.Fatalf("GetConsent = %+v, want %+v", got, first)
		}

		second := &Consent{TPP: tppA, CustomerID: c.ID, AccountIDs: []string{acct.ID}, Status: ConsentReceived}
		wantErr(t, "CreateConsent", s.CreateConsent(ctx, second), nil)
		wantErr(t, "CreateConsent other TPP", s.CreateConsent(ctx,
			&Consent{TPP: tppB, CustomerID: c.ID, Status: ConsentValid}), nil)
		list, err := s.ListConsents(ctx, tppA, c.ID)
		wantErr(t, "ListConsents", err, nil)
		if len(list) != 2 || !reflect.DeepEqual(&list[0], second) || !reflect.DeepEqual(&list[1], first) {
			t.Fatalf("ListConsents = %+v, want second then first", list)
		}
		none, err := s.ListConsents(ctx, "PSDDK-DFSA-333333", c.ID)
		wantErr(t, "ListConsents of a TPP without consents", err, nil)
		if len(none) != 0 {
			t.Fatalf("ListConsents = %+v, want none", none)
		}

		// A preset ID (the SCA flow's) is kept; a taken one is a conflict.
		preset := &Consent{ID: "enc!!preset-consent-id", TPP: tppA, CustomerID: c.ID, Status: ConsentValid}
		wantErr(t, "CreateConsent with ID", s.CreateConsent(ctx, preset), nil)
		if got, err := s.GetConsent(ctx, "enc!!preset-consent-id"); err != nil || got.TPP != tppA {
			t.Fatalf("preset ID not kept: %v %v", got, err)
		}
		wantErr(t, "CreateConsent with a taken ID", s.CreateConsent(ctx, &Consent{ID: preset.ID, TPP: tppA, CustomerID: c.ID, Status: ConsentValid}), ErrConflict)
		wantErr(t, "SetConsentStatus", s.SetConsentStatus(ctx, first.ID, ConsentRevokedByPSU), nil)
		got, _ = s.GetConsent(ctx, first.ID)
		if got.Status != ConsentRevokedByPSU {
			t.Fatalf("status = %q after SetConsentStatus, want %q", got.Status, ConsentRevokedByPSU)
		}

		errs := []struct {
			name string
			call func() error
			want error
		}{
			{"set status unknown consent", func() error { return s.SetConsentStatus(ctx, "enc!!nope", ConsentExpired) }, ErrNotFound},
			{"set unknown status", func() error { return s.SetConsentStatus(ctx, first.ID, "revoked") }, ErrInvalid},
			{"get unknown", func() error { _, err := s.GetConsent(ctx, "enc!!nope"); return err }, ErrNotFound},
			{"unknown account", func() error {
				return s.CreateConsent(ctx, &Consent{TPP: tppB, CustomerID: c.ID, Status: ConsentValid,
					AccountIDs: []string{acct.ID, "enc!!nope"}})
			}, ErrNotFound},
			{"unknown customer", func() error {
				return s.CreateConsent(ctx, &Consent{TPP: tppB, CustomerID: "enc!!nope", Status: ConsentValid})
			}, ErrNotFound},
			{"unknown status", func() error {
				return s.CreateConsent(ctx, &Consent{TPP: tppB, CustomerID: c.ID, Status: "ok"})
			}, ErrInvalid},
		}
		for _, tt := range errs {
			wantErr(t, tt.name, tt.call(), tt.want)
		}
		list, _ = s.ListConsents(ctx, tppB, c.ID)
		if len(list) != 1 {
			t.Fatalf("failed CreateConsent calls left %d consents for tppB, want 1", len(list))
		}
	})
}
