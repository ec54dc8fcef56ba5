package backend

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/obgw/obgw/backend/civildate"
	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// consentResponse is the answer to a consent creation.
type consentResponse struct {
	ConsentID     string                  `json:"consentId"`
	ConsentStatus string                  `json:"consentStatus"`
	Links         map[string]respond.Link `json:"_links"`
}

// createConsent starts a bank-offered consent: the PSU chooses the accounts
// during SCA. The body is ignored (POST /v1/consents is the deprecated
// spelling of the same). The consent id is the SCA flow's id.
func (s *Server) createConsent(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	f, e := s.startFlow(r.Context(), r, c, PurposeConsent, "", false)
	if e != nil {
		return e
	}
	self := respond.Under(r, "/v1/bank-offered-consents/"+f.ID)
	w.Header().Set("Location", self)
	respond.JSON(w, http.StatusCreated, consentResponse{
		ConsentID:     f.ID,
		ConsentStatus: store.ConsentReceived,
		Links: map[string]respond.Link{
			"scaRedirect": respond.Get(scaHref(r, f.ID)),
			"self":        {Href: self, Verbs: []string{"GET", "DELETE"}},
			"status":      respond.Get(self + "/status"),
		},
	})
	return nil
}

// consentOf returns the consent with id, or a stand-in built from its
// still-pending (or failed) SCA flow. Consents of other TPPs are unknown.
func (s *Server) consentOf(r *http.Request, c *tppcontext.Context) (*store.Consent, *bgerror.Error) {
	id := r.PathValue("consentId")
	k, err := s.cfg.Store.GetConsent(r.Context(), id)
	if err == nil {
		if k.TPP != c.TPP {
			return nil, bgerror.NewStatus(http.StatusForbidden, bgerror.CodeResourceUnknown, "the consent belongs to another TPP")
		}
		if k.Status == store.ConsentValid && !s.cfg.Now().Before(k.ValidUntil) {
			// Computed on read; the retention sweep stores it.
			k.Status = store.ConsentExpired
		}
		return k, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return nil, s.storeError(err, "the consent")
	}
	f, err := s.cfg.Store.GetSCAFlow(r.Context(), id)
	if err != nil {
		return nil, s.storeError(err, "the consent")
	}
	if f.TPP != c.TPP || f.Purpose != PurposeConsent {
		return nil, bgerror.NewStatus(http.StatusForbidden, bgerror.CodeResourceUnknown, "the consent belongs to another TPP")
	}
	status := store.ConsentReceived
	switch {
	case f.State == store.FlowFailed && f.Outcome == failure(outcomeWithdrawn).Encode():
		status = store.ConsentTerminatedByTPP
	case f.State == store.FlowFailed || (f.State == store.FlowPending && !s.cfg.Now().Before(f.ExpiresAt)):
		status = store.ConsentRejected
	}
	return &store.Consent{ID: f.ID, TPP: f.TPP, Status: status, CreatedAt: f.CreatedAt}, nil
}

type accountReference struct {
	IBAN      string `json:"iban,omitempty"`
	BBAN      string `json:"bban,omitempty"`
	MaskedPAN string `json:"maskedPan,omitempty"`
	Currency  string `json:"currency,omitempty"`
}

func (s *Server) getConsent(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	k, e := s.consentOf(r, c)
	if e != nil {
		return e
	}
	body := map[string]any{"consentStatus": k.Status, "recurringIndicator": true, "frequencyPerDay": 4}
	if !k.ValidUntil.IsZero() {
		body["validUntil"] = civildate.Today(k.ValidUntil)
		body["lastActionDate"] = civildate.Today(k.LastSCA)
	}
	if len(k.AccountIDs) > 0 {
		accounts, _ := s.cfg.Store.ListAccounts(r.Context(), store.KindAccount, k.AccountIDs)
		cards, _ := s.cfg.Store.ListAccounts(r.Context(), store.KindCardAccount, k.AccountIDs)
		refs := []accountReference{}
		for _, a := range append(accounts, cards...) {
			refs = append(refs, accountReference{IBAN: a.IBAN, BBAN: a.BBAN, MaskedPAN: a.MaskedPAN, Currency: a.Currency})
		}
		body["access"] = map[string]any{"accounts": refs, "balances": refs, "transactions": refs}
	}
	body["_links"] = map[string]respond.Link{"status": respond.Get(respond.Under(r, "/v1/bank-offered-consents/"+k.ID+"/status"))}
	respond.JSON(w, http.StatusOK, body)
	return nil
}

func (s *Server) getConsentStatus(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	k, e := s.consentOf(r, c)
	if e != nil {
		return e
	}
	respond.JSON(w, http.StatusOK, map[string]string{"consentStatus": k.Status})
	return nil
}

// outcomeWithdrawn ends the SCA flow of a consent the TPP deleted before
// the PSU authorised it; the consent then reads terminatedByTpp.
var outcomeWithdrawn = bgerror.New(bgerror.CodeConsentInvalid, "The provider withdrew its request for your consent")

// deleteConsent terminates a consent on the TPP's behalf: a valid one, or
// one still received, whose SCA flow it ends (issue 29, 10: the TPP may
// delete a consent at any time). An ended consent stays as it ended (409).
func (s *Server) deleteConsent(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	k, e := s.consentOf(r, c)
	if e != nil {
		return e
	}
	if k.Status == store.ConsentReceived {
		f, err := s.cfg.Store.GetSCAFlow(r.Context(), k.ID)
		if err != nil {
			return s.storeError(err, "the consent")
		}
		done := *f
		done.State, done.Outcome = store.FlowFailed, failure(outcomeWithdrawn).Encode()
		if err := s.cfg.Store.UpdateSCAFlow(r.Context(), &done, store.FlowPending); errors.Is(err, store.ErrConflict) {
			return bgerror.New(bgerror.CodeStatusInvalid, "the PSU's authorisation of the consent ended meanwhile; read its status and delete it again if it is valid")
		} else if err != nil {
			return s.storeError(err, "the consent")
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	if k.Status != store.ConsentValid {
		return bgerror.New(bgerror.CodeStatusInvalid, "the consent is "+k.Status+" and cannot be terminated")
	}
	if err := s.cfg.Store.SetConsentStatus(r.Context(), k.ID, store.ConsentTerminatedByTPP); err != nil {
		return s.storeError(err, "the consent")
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// replaceConsents expires the PSU's older valid consents to the TPP in the
// context of k (private, or k's agreement): "if there exists already a
// former consent on account information for the PSU, the former consent
// automatically expires as soon as the new consent request is authorised"
// (Berlin Group). Their status reads expired, to the TPP and on the PSU's
// page; k alone is in force. A consent left valid (the store failed here)
// gives no access: the newest of a context decides (resolveFor).
func (s *Server) replaceConsents(ctx context.Context, k *store.Consent) {
	ks, err := s.cfg.Store.ListConsents(ctx, k.TPP, k.CustomerID)
	if err != nil {
		s.log.Warn("older consents not expired", slog.String("consent", k.ID), slog.Any("error", err))
		return
	}
	for _, old := range ks {
		if old.ID == k.ID || old.Status != store.ConsentValid || old.Context != k.Context || old.AgreementID != k.AgreementID ||
			!old.CreatedAt.Before(k.CreatedAt) {
			// Only older ones: two consents completing at once must
			// not expire each other (a tie is decided in resolveFor).
			continue
		}
		if err := s.cfg.Store.SetConsentStatus(ctx, old.ID, store.ConsentExpired); err != nil {
			s.log.Warn("an older consent not expired", slog.String("consent", old.ID), slog.Any("error", err))
		}
	}
}
