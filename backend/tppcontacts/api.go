package tppcontacts

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// Path is the one resource of TPP contact registration: the addresses
// that receive the bank's operational notices.
const Path = "/v1/tpp-contacts"

// Store is what the API keeps the records in: the three operations of the
// backend's store it uses.
type Store interface {
	GetTPPContacts(ctx context.Context, tpp string) (*store.TPPContacts, error)
	PutTPPContacts(ctx context.Context, c *store.TPPContacts) error
	DeleteTPPContacts(ctx context.Context, tpp string) error
}

// API serves GET, PUT and DELETE of Path for the TPP the gateway
// verified: a TPP only ever reaches its own record, keyed by its
// organizationIdentifier. Its methods are the backend's handlers of the
// three routes; they answer through package respond.
type API struct {
	Store Store
	// Log takes the store failures.
	Log *slog.Logger
}

// tppContactsJSON is the answer of GET and PUT.
type tppContactsJSON struct {
	TPPID          string   `json:"tppId"`
	EmailAddresses []string `json:"emailAddresses"`
	LastUpdated    string   `json:"lastUpdated"`
}

func writeTPPContacts(w http.ResponseWriter, c *store.TPPContacts) {
	respond.JSON(w, http.StatusOK, tppContactsJSON{
		TPPID:          c.TPP,
		EmailAddresses: c.EmailAddresses,
		LastUpdated:    c.UpdatedAt.UTC().Format(time.RFC3339),
	})
}

// noTPPContacts is the answer when a TPP has registered none.
func noTPPContacts() *bgerror.Error {
	return bgerror.NewStatus(http.StatusNotFound, bgerror.CodeResourceUnknown,
		"no contact addresses are registered for this TPP; register them with PUT "+Path)
}

// checkTPPID refuses a tppId (at path) that does not name the verified
// TPP: 403 RESOURCE_UNKNOWN for another TPP's id (contract section 2: a
// resource of another TPP), 400 FORMAT_ERROR for no organizationIdentifier.
func checkTPPID(id, path string, c *tppcontext.Context) *bgerror.Error {
	switch MatchTPPID(id, c.TPP) {
	case OtherTPP:
		e := bgerror.NewStatus(http.StatusForbidden, bgerror.CodeResourceUnknown,
			"names another TPP than "+c.TPP+", whose certificate signed the request; a TPP manages only its own contacts")
		e.Path = path
		return e
	case NotTPPID:
		return bgerror.Format(path, RuleTPPID)
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
			return bgerror.New(bgerror.CodeFormatError, "unknown query parameter; "+Path+" takes only tppId (case-sensitive)")
		}
		if len(vals) != 1 {
			return bgerror.Format("tppId", "appears more than once; send it once")
		}
	}
	return checkTPPID(q.Get("tppId"), "tppId", c)
}

// Get answers the TPP's record, or 404 when it registered none.
func (a API) Get(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	if e := tppIDQuery(r, c); e != nil {
		return e
	}
	rec, err := a.Store.GetTPPContacts(r.Context(), c.TPP)
	if errors.Is(err, store.ErrNotFound) {
		return noTPPContacts()
	} else if err != nil {
		return respond.StoreError(a.Log, err, "the TPP contacts")
	}
	writeTPPContacts(w, rec)
	return nil
}

// Put replaces the TPP's record with the registration in the body.
func (a API) Put(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	if r.URL.RawQuery != "" {
		return bgerror.New(bgerror.CodeFormatError, "PUT "+Path+" takes no query parameters; send tppId in the body")
	}
	body, e := respond.Body(r)
	if e != nil {
		return e
	}
	reg, errs := ParseRegistration(body)
	if len(errs) > 0 {
		return respond.FieldErrors(errs)
	}
	if e := checkTPPID(reg.TPPID, "$.tppId", c); e != nil {
		return e
	}
	rec := &store.TPPContacts{TPP: c.TPP, EmailAddresses: reg.EmailAddresses}
	if err := a.Store.PutTPPContacts(r.Context(), rec); err != nil {
		return respond.StoreError(a.Log, err, "the TPP contacts")
	}
	writeTPPContacts(w, rec)
	return nil
}

// Delete removes the TPP's record.
func (a API) Delete(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	if e := tppIDQuery(r, c); e != nil {
		return e
	}
	err := a.Store.DeleteTPPContacts(r.Context(), c.TPP)
	if errors.Is(err, store.ErrNotFound) {
		return noTPPContacts()
	} else if err != nil {
		return respond.StoreError(a.Log, err, "the TPP contacts")
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
