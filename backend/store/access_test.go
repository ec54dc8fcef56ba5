package store

import (
	"reflect"
	"testing"
	"time"
)

// TestResolveAccess: ResolveAccess answers what CustomerByPSUID,
// GetSession, ListConsents and GetAccount answer together, in every case
// the backend meets: no consents, several with and without accounts,
// another TPP's, a session of the customer, of another customer, none,
// none asked; an account, a card account, another customer's, an unknown
// one, none asked.
func TestResolveAccess(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		const tppA, tppB = "PSDNO-FSA-111111111", "PSDSE-FINA-222222"
		c := mustCustomer(t, s, "01017012345", CustomerPrivate)
		other := mustCustomer(t, s, "02027012345", CustomerPrivate)
		acct := mustAccount(t, s, c.ID, "NO9312345678903")
		card := mustAccount(t, s, c.ID, "")
		psu, err := s.PSUID(ctx, tppA, c.ID)
		wantErr(t, "PSUID", err, nil)
		otherPSU, err := s.PSUID(ctx, tppA, other.ID)
		wantErr(t, "PSUID", err, nil)
		sca := time.Date(2025, 3, 1, 12, 0, 0, 5000, time.UTC)
		until := sca.Add(time.Hour)
		wantErr(t, "CompleteSession", s.CompleteSession(ctx, &Session{TPP: tppA, TPPSessionID: "mine", CustomerID: c.ID,
			Context: string(CustomerPrivate), ValidUntil: until}), nil)
		wantErr(t, "CompleteSession", s.CompleteSession(ctx, &Session{TPP: tppA, TPPSessionID: "theirs", CustomerID: other.ID,
			Context: string(CustomerPrivate), ValidUntil: until}), nil)

		check := func(name, psuID, sid, account string) {
			t.Helper()
			got, err := s.ResolveAccess(ctx, tppA, psuID, sid, account)
			cust, cerr := s.CustomerByPSUID(ctx, tppA, psuID)
			if cerr != nil {
				wantErr(t, name+": ResolveAccess of an unknown PSU-ID", err, ErrNotFound)
				return
			}
			wantErr(t, name+": ResolveAccess", err, nil)
			want := &Access{Customer: *cust}
			if sid != "" {
				if ses, err := s.GetSession(ctx, tppA, sid); err == nil {
					want.Session = ses
				}
			}
			if account != "" {
				if acc, err := s.GetAccount(ctx, account); err == nil {
					want.Account = acc
				}
			}
			want.Consents, err = s.ListConsents(ctx, tppA, cust.ID)
			wantErr(t, name+": ListConsents", err, nil)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
			}
		}
		check("no consents", psu, "mine", acct.ID)
		wantErr(t, "CreateConsent", s.CreateConsent(ctx, &Consent{TPP: tppA, CustomerID: c.ID, Context: string(CustomerPrivate),
			AccountIDs: []string{card.ID, acct.ID}, Status: ConsentValid, ValidUntil: sca.AddDate(0, 0, 180), LastSCA: sca}), nil)
		wantErr(t, "CreateConsent", s.CreateConsent(ctx, &Consent{TPP: tppA, CustomerID: c.ID, Status: ConsentReceived}), nil)
		wantErr(t, "CreateConsent", s.CreateConsent(ctx, &Consent{TPP: tppA, CustomerID: c.ID, Context: string(CustomerPrivate),
			AccountIDs: []string{acct.ID}, Status: ConsentRevokedByPSU, ValidUntil: sca.AddDate(0, 0, 180), LastSCA: sca}), nil)
		wantErr(t, "CreateConsent other TPP", s.CreateConsent(ctx, &Consent{TPP: tppB, CustomerID: c.ID, Status: ConsentValid}), nil)
		check("consents, own session", psu, "mine", acct.ID)
		check("another customer's session", psu, "theirs", card.ID)
		check("no such session", psu, "nope", "enc!!nope")
		check("no session asked", psu, "", "")
		check("the other customer", otherPSU, "theirs", acct.ID)
		check("unknown PSU-ID", "3f2504e0-4f89-41d3-9a0c-0305e82c3301", "mine", acct.ID)
	})
}
