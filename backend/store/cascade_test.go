package store

import (
	"testing"
	"time"
)

func TestDeleteCustomerCascades(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		const tpp = "PSDNO-FSA-111111111"
		victim := mustCustomer(t, s, "912345678", CustomerCorporate)
		other := mustCustomer(t, s, "01017012345", CustomerPrivate)
		corp := mustCustomer(t, s, "987654321", CustomerCorporate)

		vAcct := mustAccount(t, s, victim.ID, "NO9312345678903")
		oAcct := mustAccount(t, s, other.ID, "NO0212345678901")
		cAcct := mustAccount(t, s, corp.ID, "NO4712345678912")
		wantErr(t, "SetBalances", s.SetBalances(ctx, vAcct.ID, []Balance{{Type: "expected", Amount: 1, Currency: "NOK"}}), nil)
		vTx := []Transaction{{Booked: true, Amount: 1, Currency: "NOK", BookingDate: "2025-01-01"}}
		wantErr(t, "AddTransactions", s.AddTransactions(ctx, vAcct.ID, vTx), nil)

		owned := mustAgreement(t, s, victim.ID, Engagement{CustomerID: other.ID, AccountID: vAcct.ID, Roles: []string{RoleView}})
		naming := mustAgreement(t, s, corp.ID,
			Engagement{CustomerID: victim.ID, AccountID: cAcct.ID, Roles: []string{RoleView}},
			Engagement{CustomerID: other.ID, AccountID: cAcct.ID, Roles: []string{RoleView}})
		corpID, err := s.CorporateID(ctx, tpp, owned.ID)
		wantErr(t, "CorporateID", err, nil)
		psuID, err := s.PSUID(ctx, tpp, victim.ID)
		wantErr(t, "PSUID", err, nil)

		vConsent := &Consent{TPP: tpp, CustomerID: victim.ID, AccountIDs: []string{vAcct.ID}, Status: ConsentValid}
		wantErr(t, "CreateConsent", s.CreateConsent(ctx, vConsent), nil)
		viaAgreement := &Consent{TPP: tpp, CustomerID: other.ID, Context: string(CustomerCorporate), AgreementID: owned.ID,
			AccountIDs: []string{vAcct.ID}, Status: ConsentValid}
		wantErr(t, "CreateConsent", s.CreateConsent(ctx, viaAgreement), nil)
		oConsent := &Consent{TPP: tpp, CustomerID: other.ID, AccountIDs: []string{oAcct.ID, vAcct.ID}, Status: ConsentValid}
		wantErr(t, "CreateConsent", s.CreateConsent(ctx, oConsent), nil)

		wantErr(t, "CompleteSession", s.CompleteSession(ctx, &Session{TPP: tpp, TPPSessionID: "v",
			CustomerID: victim.ID, ValidUntil: time.Now().Add(time.Hour)}), nil)
		wantErr(t, "CompleteSession", s.CompleteSession(ctx, &Session{TPP: tpp, TPPSessionID: "o-corp",
			CustomerID: other.ID, AgreementID: owned.ID, ValidUntil: time.Now().Add(time.Hour)}), nil)
		wantErr(t, "CompleteSession", s.CompleteSession(ctx, &Session{TPP: "PSDSE-FINA-222222", TPPSessionID: "o",
			CustomerID: other.ID, ValidUntil: time.Now().Add(time.Hour)}), nil)
		vFlow := &SCAFlow{TPP: tpp, CustomerID: victim.ID}
		wantErr(t, "CreateSCAFlow", s.CreateSCAFlow(ctx, vFlow), nil)
		agFlow := &SCAFlow{TPP: tpp, CustomerID: other.ID, AgreementID: owned.ID}
		wantErr(t, "CreateSCAFlow", s.CreateSCAFlow(ctx, agFlow), nil)
		anonFlow := &SCAFlow{TPP: tpp}
		wantErr(t, "CreateSCAFlow", s.CreateSCAFlow(ctx, anonFlow), nil)

		wantErr(t, "DeleteCustomer", s.DeleteCustomer(ctx, victim.ID), nil)

		gone := []struct {
			name string
			call func() error
		}{
			{"customer", func() error { _, err := s.GetCustomer(ctx, victim.ID); return err }},
			{"account", func() error { _, err := s.GetAccount(ctx, vAcct.ID); return err }},
			{"balances", func() error { _, err := s.ListBalances(ctx, vAcct.ID); return err }},
			{"transaction", func() error { _, err := s.GetTransaction(ctx, vAcct.ID, vTx[0].ID); return err }},
			{"transactions", func() error {
				_, _, err := s.ListTransactions(ctx, vAcct.ID, TransactionFilter{Booked: true, Pending: true})
				return err
			}},
			{"owned agreement", func() error { _, err := s.GetAgreement(ctx, owned.ID); return err }},
			{"corporate id", func() error { _, err := s.AgreementByCorporateID(ctx, tpp, corpID); return err }},
			{"psu id", func() error { _, err := s.CustomerByPSUID(ctx, tpp, psuID); return err }},
			{"consent", func() error { _, err := s.GetConsent(ctx, vConsent.ID); return err }},
			{"consent under owned agreement", func() error { _, err := s.GetConsent(ctx, viaAgreement.ID); return err }},
			{"session", func() error { _, err := s.GetSession(ctx, tpp, "v"); return err }},
			{"session under owned agreement", func() error { _, err := s.GetSession(ctx, tpp, "o-corp"); return err }},
			{"sca flow", func() error { _, err := s.GetSCAFlow(ctx, vFlow.ID); return err }},
			{"sca flow under owned agreement", func() error { _, err := s.GetSCAFlow(ctx, agFlow.ID); return err }},
		}
		for _, g := range gone {
			wantErr(t, g.name+" after DeleteCustomer", g.call(), ErrNotFound)
		}

		ag, err := s.GetAgreement(ctx, naming.ID)
		wantErr(t, "GetAgreement naming the deleted customer", err, nil)
		if len(ag.Engagements) != 1 || ag.Engagements[0].CustomerID != other.ID {
			t.Fatalf("engagements after delete = %+v, want other's only", ag.Engagements)
		}
		list, err := s.ListAgreementsOf(ctx, victim.ID)
		wantErr(t, "ListAgreementsOf", err, nil)
		if len(list) != 0 {
			t.Fatalf("ListAgreementsOf(deleted) = %+v", list)
		}
		c, err := s.GetConsent(ctx, oConsent.ID)
		wantErr(t, "GetConsent of another customer", err, nil)
		if len(c.AccountIDs) != 1 || c.AccountIDs[0] != oAcct.ID {
			t.Fatalf("other's consent accounts = %v, want the deleted account dropped", c.AccountIDs)
		}
		for _, keep := range []func() error{
			func() error { _, err := s.GetCustomer(ctx, other.ID); return err },
			func() error { _, err := s.GetAccount(ctx, oAcct.ID); return err },
			func() error { _, err := s.GetSession(ctx, "PSDSE-FINA-222222", "o"); return err },
			func() error { _, err := s.GetSCAFlow(ctx, anonFlow.ID); return err },
		} {
			wantErr(t, "unrelated data after DeleteCustomer", keep(), nil)
		}

		// No row anywhere still names the customer.
		raw := s.(*sqlStore).db
		for _, table := range []string{"accounts", "agreement_engagements", "psu_ids", "sca_flows", "sessions", "consents"} {
			var n int
			if err := raw.QueryRow(`SELECT COUNT(*) FROM `+table+` WHERE customer_id = $1`, victim.ID).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Fatalf("%d rows of %s still name the deleted customer", n, table)
			}
		}
		var n int
		if err := raw.QueryRow(`SELECT COUNT(*) FROM agreements WHERE owner_id = $1`, victim.ID).Scan(&n); err != nil || n != 0 {
			t.Fatalf("agreements still owned by the deleted customer: %d (%v)", n, err)
		}
	})
}
