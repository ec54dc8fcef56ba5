package sandbox

import (
	"errors"
	"net/http"

	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// RevokeConsent is the sandbox operation POST
// /v1/sandbox/consents/{consentId}/revoke: the PSU revokes a valid consent
// at the bank ("The PSU can revoke consent at any time with the bank").
// The consent becomes revokedByPsu, and the TPP's next call under it gets
// 401 CONSENT_EXPIRED with a scaRedirect, on every instance (the status is
// in the store). A TPP revokes only its own consents; it answers 200 with
// the consent's status.
func (s *Service) RevokeConsent(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	ctx := r.Context()
	k, err := s.Store.GetConsent(ctx, r.PathValue("consentId"))
	if errors.Is(err, store.ErrNotFound) {
		return bgerror.NewStatus(http.StatusNotFound, bgerror.CodeResourceUnknown, "no such consent")
	} else if err != nil {
		return s.storeError(err, "the consent")
	}
	if k.TPP != c.TPP {
		return bgerror.NewStatus(http.StatusForbidden, bgerror.CodeResourceUnknown, "the consent belongs to another TPP")
	}
	if k.Status != store.ConsentValid || !s.Now().Before(k.ValidUntil) {
		return bgerror.New(bgerror.CodeStatusInvalid, "the consent is "+k.Status+"; only a valid consent can be revoked")
	}
	if err := s.Store.SetConsentStatus(ctx, k.ID, store.ConsentRevokedByPSU); err != nil {
		return s.storeError(err, "the consent")
	}
	respond.JSON(w, http.StatusOK, map[string]string{"consentStatus": store.ConsentRevokedByPSU})
	return nil
}
