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
		return s.storeError(err, "the TPP contacts")
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
		return s.storeError(err, "the TPP contacts")
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
		return s.storeError(err, "the TPP contacts")
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
