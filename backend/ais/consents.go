package ais

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/obgw/obgw/backend/civildate"
	"github.com/obgw/obgw/backend/resource"
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

// CreateConsent starts a bank-offered consent: the PSU chooses the accounts
// during SCA. The body is ignored (POST /v1/consents is the deprecated
// spelling of the same). The consent id is the SCA flow's id.
func (s *Service) CreateConsent(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	f, e := s.Flows.Start(r.Context(), r, c, store.PurposeConsent, "", false)
	if e != nil {
		return e
	}
	self := respond.Under(r, "/v1/bank-offered-consents/"+f.ID)
	w.Header().Set("Location", self)
	respond.JSON(w, http.StatusCreated, consentResponse{
		ConsentID:     f.ID,
		ConsentStatus: store.ConsentReceived,
		Links: map[string]respond.Link{
			"scaRedirect": respond.Get(s.Flows.Href(r, f.ID)),
			"self":        {Href: self, Verbs: []string{"GET", "DELETE"}},
			"status":      respond.Get(self + "/status"),
		},
	})
	return nil
}

// consentOf returns the consent with id, or a stand-in built from its
// still-pending (or failed) SCA flow. Consents of other TPPs are unknown.
func (s *Service) consentOf(r *http.Request, c *tppcontext.Context) (*store.Consent, *bgerror.Error) {
	id := r.PathValue("consentId")
	k, err := s.Store.GetConsent(r.Context(), id)
	if err == nil {
		if k.TPP != c.TPP {
			return nil, bgerror.NewStatus(http.StatusForbidden, bgerror.CodeResourceUnknown, "the consent belongs to another TPP")
		}
		if k.Status == store.ConsentValid && !s.Now().Before(k.ValidUntil) {
			// Computed on read; the retention sweep stores it.
			k.Status = store.ConsentExpired
		}
		return k, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return nil, s.storeError(err, "the consent")
	}
	f, err := s.Store.GetSCAFlow(r.Context(), id)
	if err != nil {
		return nil, s.storeError(err, "the consent")
	}
	if f.TPP != c.TPP || f.Purpose != store.PurposeConsent {
		return nil, bgerror.NewStatus(http.StatusForbidden, bgerror.CodeResourceUnknown, "the consent belongs to another TPP")
	}
	status := store.ConsentReceived
	switch {
	case s.Flows.Withdrawn(f):
		status = store.ConsentTerminatedByTPP
	case f.State == store.FlowFailed || (f.State == store.FlowPending && !s.Now().Before(f.ExpiresAt)):
		status = store.ConsentRejected
	}
	return &store.Consent{ID: f.ID, TPP: f.TPP, Status: status, CreatedAt: f.CreatedAt}, nil
}

func (s *Service) GetConsent(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
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
		accounts, _ := s.Store.ListAccounts(r.Context(), store.KindAccount, k.AccountIDs)
		cards, _ := s.Store.ListAccounts(r.Context(), store.KindCardAccount, k.AccountIDs)
		refs := []resource.AccountReference{}
		for _, a := range append(accounts, cards...) {
			refs = append(refs, resource.AccountReference{IBAN: a.IBAN, BBAN: a.BBAN, MaskedPAN: a.MaskedPAN, Currency: a.Currency})
		}
		body["access"] = map[string]any{"accounts": refs, "balances": refs, "transactions": refs}
	}
	body["_links"] = map[string]respond.Link{"status": respond.Get(respond.Under(r, "/v1/bank-offered-consents/"+k.ID+"/status"))}
	respond.JSON(w, http.StatusOK, body)
	return nil
}

func (s *Service) GetConsentStatus(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	k, e := s.consentOf(r, c)
	if e != nil {
		return e
	}
	respond.JSON(w, http.StatusOK, map[string]string{"consentStatus": k.Status})
	return nil
}

// DeleteConsent terminates a consent on the TPP's behalf: a valid one, or
// one still received, whose SCA flow it ends (issue 29, 10: the TPP may
// delete a consent at any time). An ended consent stays as it ended (409).
func (s *Service) DeleteConsent(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	k, e := s.consentOf(r, c)
	if e != nil {
		return e
	}
	if k.Status == store.ConsentReceived {
		f, err := s.Store.GetSCAFlow(r.Context(), k.ID)
		if err != nil {
			return s.storeError(err, "the consent")
		}
		// The flow ends withdrawn; the consent then reads terminatedByTpp.
		if err := s.Flows.Withdraw(r.Context(), f); errors.Is(err, store.ErrConflict) {
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
	if err := s.Store.SetConsentStatus(r.Context(), k.ID, store.ConsentTerminatedByTPP); err != nil {
		return s.storeError(err, "the consent")
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// Grant stores the consent the PSU authorised at now in consent flow f
// for the accounts chosen (its id is the flow's, valid for
// ConsentLifetime), and expires the older consents of its context
// (replaceConsents).
func (s *Service) Grant(ctx context.Context, f *store.SCAFlow, chosen []string, now time.Time) error {
	k := &store.Consent{
		ID: f.ID, TPP: f.TPP, CustomerID: f.CustomerID, Context: f.Context, AgreementID: f.AgreementID,
		AccountIDs: chosen, Status: store.ConsentValid, ValidUntil: now.Add(ConsentLifetime), LastSCA: now,
	}
	if err := s.Store.CreateConsent(ctx, k); err != nil {
		return err
	}
	s.replaceConsents(ctx, k)
	return nil
}

// replaceConsents expires the PSU's older valid consents to the TPP in the
// context of k (private, or k's agreement): "if there exists already a
// former consent on account information for the PSU, the former consent
// automatically expires as soon as the new consent request is authorised"
// (Berlin Group). Their status reads expired, to the TPP and on the PSU's
// page; k alone is in force. A consent left valid (the store failed here)
// gives no access: the newest of a context decides (resolveFor).
func (s *Service) replaceConsents(ctx context.Context, k *store.Consent) {
	ks, err := s.Store.ListConsents(ctx, k.TPP, k.CustomerID)
	if err != nil {
		s.Log.Warn("older consents not expired", slog.String("consent", k.ID), slog.Any("error", err))
		return
	}
	for _, old := range ks {
		if old.ID == k.ID || old.Status != store.ConsentValid || old.Context != k.Context || old.AgreementID != k.AgreementID ||
			!old.CreatedAt.Before(k.CreatedAt) {
			// Only older ones: two consents completing at once must
			// not expire each other (a tie is decided in resolveFor).
			continue
		}
		if err := s.Store.SetConsentStatus(ctx, old.ID, store.ConsentExpired); err != nil {
			s.Log.Warn("an older consent not expired", slog.String("consent", old.ID), slog.Any("error", err))
		}
	}
}
