package ais

import (
	"errors"
	"net/http"
	"time"

	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// access is what a TPP may see for one request: the PSU, how it
// authenticated and the consent in force.
type access struct {
	customer *store.Customer
	consent  *store.Consent
	// account is the account of the path, read with the rest (nil when
	// none was asked for or none is stored).
	account *store.Account
	// psuPresent: the request carries PSU-IP-Address.
	psuPresent bool
}

// allows reports whether the consent covers accountID.
func (a *access) allows(accountID string) bool {
	for _, id := range a.consent.AccountIDs {
		if id == accountID {
			return true
		}
	}
	return false
}

// resolve finds the PSU and the consent in force for an AIS request, or the
// error the TPP gets: 401 CONSENT_INVALID with a new SCA flow when the PSU
// is unknown, has no valid session (PSU present) or no consent; 401
// CONSENT_EXPIRED when the consent was revoked or ran out; 400
// CORPORATE_ID_INVALID when a corporate context lacks PSU-Corporate-ID.
func (s *Service) resolve(r *http.Request, c *tppcontext.Context) (*access, *bgerror.Error) {
	return s.resolveFor(r, c, true, "")
}

// resolveFor is resolve; corporate false skips the PSU-Corporate-ID check,
// for GET /v1/agreements, which is how a TPP learns that id. accountID,
// when not empty, is read with the rest (access.account).
func (s *Service) resolveFor(r *http.Request, c *tppcontext.Context, corporate bool, accountID string) (*access, *bgerror.Error) {
	ctx := r.Context()
	now := s.Now()
	if c.PSUID == "" {
		return nil, s.Flows.Required(ctx, r, c, bgerror.CodeConsentInvalid, "no PSU-ID: the PSU must authenticate; redirect the PSU to scaRedirect")
	}
	// The customer, the session and the consents in one statement.
	sid := ""
	if c.PSUPresent {
		sid = r.Header.Get("Tpp-Session-Id")
	}
	found, err := s.Store.ResolveAccess(ctx, c.TPP, c.PSUID, sid, accountID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, s.Flows.Required(ctx, r, c, bgerror.CodeConsentInvalid, "the PSU-ID is not known for this TPP; redirect the PSU to scaRedirect")
	} else if err != nil {
		return nil, s.storeError(err, "the PSU")
	}
	cust := &found.Customer
	a := &access{customer: cust, psuPresent: c.PSUPresent, account: found.Account}
	if c.PSUPresent {
		sess := found.Session
		switch {
		case sid == "" || sess == nil:
			return nil, s.Flows.Required(ctx, r, c, bgerror.CodeConsentInvalid, "no SCA session for this TPP-Session-ID; redirect the PSU to scaRedirect")
		case sess.CustomerID != cust.ID || sess.Invalidated || !now.Before(sess.ValidUntil):
			return nil, s.Flows.Required(ctx, r, c, bgerror.CodeConsentInvalid, "the SCA session is expired or replaced; redirect the PSU to scaRedirect")
		}
	}
	// The context the request acts in: corporate, under the agreement
	// PSU-Corporate-ID names (any agreement the PSU holds: from the SCA
	// redirect or GET /v1/agreements), else private. GET /v1/agreements
	// (corporate false) is served under any consent of the PSU.
	wantContext, wantAgreement := "PRIVATE", ""
	if corporate && c.PSUCorporateID != "" {
		ag, err := s.Store.AgreementByCorporateID(ctx, c.TPP, c.PSUCorporateID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, s.storeError(err, "the agreement")
		}
		if err != nil || !engagedIn(ag, cust.ID) {
			e := bgerror.New(bgerror.CodeCorporateIDInvalid, "PSU-Corporate-ID names no agreement of this PSU; take it from the SCA redirect or from GET /v1/agreements")
			e.Path = "PSU-Corporate-ID"
			return nil, e
		}
		wantContext, wantAgreement = "CORPORATE", ag.ID
	}
	consents := found.Consents
	// Each context (private, or one agreement) has one consent in force:
	// the newest the PSU authorised in it (an authorised consent expires
	// the older ones of its context: replaceConsents). When that one was
	// revoked or ran out, the context has no access until a new SCA, even
	// if an older consent was left valid (issue 29, 2). Consents come
	// newest first. GET /v1/agreements (corporate false) is served under
	// any valid consent.
	var revoked, corporateHeld, decided bool
	var decidedAt time.Time
	for i := range consents {
		k := &consents[i]
		live := k.Status == store.ConsentValid && now.Before(k.ValidUntil)
		if k.Status == store.ConsentValid && !live {
			// Computed on read: a GET writes nothing (the retention
			// sweep stores the expiry).
			k.Status = store.ConsentExpired
		}
		if live && k.Context == "CORPORATE" {
			corporateHeld = true
		}
		if corporate && (k.Context != wantContext || k.AgreementID != wantAgreement) {
			continue
		}
		if corporate && decided && !(a.consent == nil && k.CreatedAt.Equal(decidedAt)) {
			// Older than the context's newest (a tie, stored in one
			// instant, is decided for the live one).
			continue
		}
		if !decided {
			decided, decidedAt = true, k.CreatedAt
		}
		switch {
		case live && a.consent == nil:
			a.consent = k
		case k.Status == store.ConsentRevokedByPSU || k.Status == store.ConsentExpired:
			revoked = true
		}
	}
	if a.consent == nil {
		// A revoked or expired consent of this context first: the PSU's
		// own consent ended, whatever it holds elsewhere (issue 29, 3).
		if revoked {
			return nil, s.Flows.Required(ctx, r, c, bgerror.CodeConsentExpired, "the consent for this context was revoked or has expired; redirect the PSU to scaRedirect for a new one")
		}
		if wantContext == "PRIVATE" && corporate && corporateHeld {
			return nil, bgerror.New(bgerror.CodeCorporateIDInvalid, "the PSU consented in a corporate context: send PSU-Corporate-ID")
		}
		return nil, s.Flows.Required(ctx, r, c, bgerror.CodeConsentInvalid, "no consent for this PSU in this context; redirect the PSU to scaRedirect")
	}
	return a, nil
}

// engagedIn reports whether customerID takes part in agreement ag.
func engagedIn(ag *store.Agreement, customerID string) bool {
	for _, e := range ag.Engagements {
		if e.CustomerID == customerID {
			return true
		}
	}
	return false
}
