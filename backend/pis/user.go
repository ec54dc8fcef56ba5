package pis

import (
	"errors"
	"net/http"

	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// GetUser is the SCA journey of a PISP that is not an AISP: with a valid
// session it answers who the PSU is for this TPP; otherwise 401
// CONSENT_INVALID with a scaRedirect to an SCA flow that ends in a session
// and the PSU-ID, without an account consent.
func (s *Service) GetUser(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	ctx := r.Context()
	sid := r.Header.Get("Tpp-Session-Id")
	if sid != "" {
		sess, err := s.Store.GetSession(ctx, c.TPP, sid)
		switch {
		case err == nil && !sess.Invalidated && s.Now().Before(sess.ValidUntil):
			psuID, err := s.Store.PSUID(ctx, c.TPP, sess.CustomerID)
			if err != nil {
				return s.storeError(err, "the PSU")
			}
			if c.PSUID != "" && c.PSUID != psuID {
				return bgerror.NewStatus(http.StatusForbidden, bgerror.CodeResourceUnknown, "PSU-ID does not match the PSU of this session")
			}
			body := map[string]any{"psuId": psuID, "context": sess.Context, "sessionValidUntil": sess.ValidUntil.UTC().Format("2006-01-02T15:04:05Z")}
			if sess.Context == "CORPORATE" {
				cid, err := s.Store.CorporateID(ctx, c.TPP, sess.AgreementID)
				if err != nil {
					return s.storeError(err, "the agreement")
				}
				body["psuCorporateId"] = cid
			}
			respond.JSON(w, http.StatusOK, body)
			return nil
		case err != nil && !errors.Is(err, store.ErrNotFound):
			return s.storeError(err, "the session")
		}
	}
	f, e := s.Flows.Start(ctx, r, c, store.PurposeUser, "", false)
	if e != nil {
		return e
	}
	return bgerror.New(bgerror.CodeConsentInvalid, "the PSU must authenticate; redirect the PSU to scaRedirect").WithSCARedirect(s.Flows.Href(r, f.ID))
}
