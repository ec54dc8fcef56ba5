package sca

import (
	"encoding/binary"
	"net/http"
	"net/url"
	"time"

	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// In a sandbox the PSU's page of consents belongs to one TPP's sandbox,
// and only that TPP opens it: GET /v1/sandbox/psu-consents answers a link
// to the page with the sandbox sealed into it (psuLinkKind), valid for
// PSULinkLifetime. The page takes its sandbox from that seal only, never
// from a name typed into the form, so a stranger who knows a TPP's
// organisation identifier and the sandbox data set's published customer
// numbers cannot list or revoke that TPP's consents.

// PSULinkLifetime is how long a sandbox's link to the PSU's page of
// consents opens it.
const PSULinkLifetime = time.Hour

// psuLinkKind is the first byte of a sealed sandbox link.
const psuLinkKind = 'L'

// PSUConsentsLink is the sandbox operation GET /v1/sandbox/psu-consents.
func (s *Service) PSUConsentsLink(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	now := s.cfg.Now()
	plain := binary.BigEndian.AppendUint64([]byte{psuLinkKind}, uint64(now.Unix()))
	sealed, err := s.seal.sealPlain(r.Context(), appendFields(plain, c.TPP))
	if err != nil {
		return bgerror.New(bgerror.CodeServiceUnavailable, "the link could not be made; retry later")
	}
	respond.JSON(w, http.StatusOK, map[string]any{
		"_links":     map[string]respond.Link{"psuConsents": respond.Get(respond.Under(r, PSUBase+"?sandbox="+url.QueryEscape(sealed)))},
		"validUntil": now.Add(PSULinkLifetime).UTC().Format(time.RFC3339),
	})
	return nil
}

// openPSULink returns the sandbox a sealed link names, while it is valid.
func (s *Service) openPSULink(r *http.Request, sealed string) (string, bool) {
	plain, ok := s.seal.openPlain(r.Context(), sealed)
	if !ok || len(plain) < 9 || plain[0] != psuLinkKind {
		return "", false
	}
	issued := time.Unix(int64(binary.BigEndian.Uint64(plain[1:9])), 0)
	var owner string
	rest, ok := readFields(plain[9:], &owner)
	if !ok || len(rest) != 0 || owner == "" || !s.cfg.Now().Before(issued.Add(PSULinkLifetime)) {
		return "", false
	}
	return owner, true
}

// psuSandbox is the sandbox the PSU's page of consents looks in: in a
// sandbox deployment the one the link the page was opened with seals
// (this file; named is false without a valid one), outside it
// the bank's own customers.
func (s *Service) psuSandbox(r *http.Request) (owner string, named bool) {
	if !s.cfg.Sandbox {
		return "", true
	}
	v := r.PostForm.Get("sandbox")
	if v == "" {
		v = r.URL.Query().Get("sandbox")
	}
	return s.openPSULink(r, v)
}

// errNoSandbox asks the PSU of a sandbox's page of consents to open it
// from its sandbox's link.
const errNoSandbox = "In the sandbox, open this page from the link of the TPP's sandbox (the TPP gets it with GET /v1/sandbox/psu-consents; it opens the page for an hour)."
