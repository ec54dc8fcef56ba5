package backend

import (
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/backend/tppcontacts"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// tppContactsPath is the one resource of TPP contact registration: the
// addresses that receive the bank's operational notices.
const tppContactsPath = "/v1/tpp-contacts"

// tppHandler is a handler of a route that needs the gateway's context token.
type tppHandler = func(http.ResponseWriter, *http.Request, *tppcontext.Context) *bgerror.Error

// tppContactRoutes registers GET, PUT and DELETE /v1/tpp-contacts. The
// route's policy names no role, so the gateway admits any PSD2 role the
// certificate and the register both grant; the backend checks that again
// (psd2Role). A TPP only ever reaches its own contacts:
// the record is keyed by the organizationIdentifier the gateway verified.
func (s *Server) tppContactRoutes(verified func(tppHandler) http.Handler) {
	s.mux.Handle("GET "+tppContactsPath, verified(psd2Role(s.getTPPContacts)))
	s.mux.Handle("PUT "+tppContactsPath, verified(psd2Role(s.putTPPContacts)))
	s.mux.Handle("DELETE "+tppContactsPath, verified(psd2Role(s.deleteTPPContacts)))
}

// psd2Role admits only a TPP to which the certificate and the register
// both grant at least one PSD2 role: the gateway checks that on routes
// that name no role, and the backend trusts no check it has not repeated.
func psd2Role(h tppHandler) tppHandler {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		if len(c.Roles) == 0 {
			return bgerror.New(bgerror.CodeRoleInvalid, "this service needs a PSD2 role that the certificate and the register both grant")
		}
		return h(w, r, c)
	}
}

// tppContactsJSON is the answer of GET and PUT.
type tppContactsJSON struct {
	TPPID          string   `json:"tppId"`
	EmailAddresses []string `json:"emailAddresses"`
	LastUpdated    string   `json:"lastUpdated"`
}

func writeTPPContacts(w http.ResponseWriter, c *store.TPPContacts) {
	writeJSON(w, http.StatusOK, tppContactsJSON{
		TPPID:          c.TPP,
		EmailAddresses: c.EmailAddresses,
		LastUpdated:    c.UpdatedAt.UTC().Format(time.RFC3339),
	})
}

// noTPPContacts is the answer when a TPP has registered none.
func noTPPContacts() *bgerror.Error {
	return bgerror.NewStatus(http.StatusNotFound, bgerror.CodeResourceUnknown,
		"no contact addresses are registered for this TPP; register them with PUT "+tppContactsPath)
}

// checkTPPID refuses a tppId (at path) that does not name the verified
// TPP: 403 RESOURCE_UNKNOWN for another TPP's id (contract section 2: a
// resource of another TPP), 400 FORMAT_ERROR for no organizationIdentifier.
func checkTPPID(id, path string, c *tppcontext.Context) *bgerror.Error {
	switch tppcontacts.MatchTPPID(id, c.TPP) {
	case tppcontacts.OtherTPP:
		e := bgerror.NewStatus(http.StatusForbidden, bgerror.CodeResourceUnknown,
			"names another TPP than "+c.TPP+", whose certificate signed the request; a TPP manages only its own contacts")
		e.Path = path
		return e
	case tppcontacts.NotTPPID:
		return bgerror.Format(path, tppcontacts.RuleTPPID)
	}
	return nil
}

// tppIDQuery returns the tppId query parameter of GET and DELETE, "" when
// absent; another parameter, or tppId more than once, is refused rather
// than ignored.
func tppIDQuery(r *http.Request, c *tppcontext.Context) *bgerror.Error {
	if r.URL.RawQuery == "" {
		return nil
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return bgerror.New(bgerror.CodeFormatError, "the query string is not URL-encoded; send at most tppId=<organizationIdentifier>")
	}
	for name, vals := range q {
		if name != "tppId" {
			return bgerror.New(bgerror.CodeFormatError, "unknown query parameter; "+tppContactsPath+" takes only tppId (case-sensitive)")
		}
		if len(vals) != 1 {
			return bgerror.Format("tppId", "appears more than once; send it once")
		}
	}
	return checkTPPID(q.Get("tppId"), "tppId", c)
}

func (s *Server) getTPPContacts(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	if e := tppIDQuery(r, c); e != nil {
		return e
	}
	rec, err := s.cfg.Store.GetTPPContacts(r.Context(), c.TPP)
	if errors.Is(err, store.ErrNotFound) {
		return noTPPContacts()
	} else if err != nil {
		return storeError(err, "the TPP contacts")
	}
	writeTPPContacts(w, rec)
	return nil
}

func (s *Server) putTPPContacts(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	if r.URL.RawQuery != "" {
		return bgerror.New(bgerror.CodeFormatError, "PUT "+tppContactsPath+" takes no query parameters; send tppId in the body")
	}
	body, e := readBody(r)
	if e != nil {
		return e
	}
	reg, errs := tppcontacts.ParseRegistration(body)
	if len(errs) > 0 {
		return fieldErrors(errs)
	}
	if e := checkTPPID(reg.TPPID, "$.tppId", c); e != nil {
		return e
	}
	rec := &store.TPPContacts{TPP: c.TPP, EmailAddresses: reg.EmailAddresses}
	if err := s.cfg.Store.PutTPPContacts(r.Context(), rec); err != nil {
		return storeError(err, "the TPP contacts")
	}
	writeTPPContacts(w, rec)
	return nil
}

func (s *Server) deleteTPPContacts(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	if e := tppIDQuery(r, c); e != nil {
		return e
	}
	err := s.cfg.Store.DeleteTPPContacts(r.Context(), c.TPP)
	if errors.Is(err, store.ErrNotFound) {
		return noTPPContacts()
	} else if err != nil {
		return storeError(err, "the TPP contacts")
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
