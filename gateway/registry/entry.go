package registry

import (
	"errors"
	"slices"
	"strings"
)

// Status values of a registry entry.
const (
	StatusAuthorised = "authorised"
	StatusWithdrawn  = "withdrawn"
)

// Entry is one TPP in the register.
type Entry struct {
	// OrganizationIdentifier is the TPP's identifier, e.g. PSDNO-FSA-987654321.
	OrganizationIdentifier string `json:"organizationIdentifier"`
	// Name is the TPP's registered name.
	Name string `json:"name"`
	// Roles are the PSD2 roles the NCA granted (PSP_AI, PSP_PI, PSP_IC, PSP_AS).
	Roles []string `json:"roles"`
	// Status is authorised or withdrawn.
	Status string `json:"status"`
	// RedirectHosts are the hosts the TPP registered with the bank for its
	// TPP-Redirect-URIs: a host name, or "*.example.no" for any host below
	// example.no. Listed, they bound where the SCA flow may send a PSU;
	// empty, any https URI the TPP signs is accepted (NCA registers carry
	// no such list).
	RedirectHosts []string `json:"redirectHosts,omitempty"`
}

// AllowsRedirectHost reports whether host (of a TPP-Redirect-URI) is one
// the TPP registered; true when it registered none. Host names compare
// case-insensitively; a wildcard covers subdomains, not the domain itself.
func (e *Entry) AllowsRedirectHost(host string) bool {
	if len(e.RedirectHosts) == 0 {
		return true
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, h := range e.RedirectHosts {
		h = strings.ToLower(h)
		if suffix, ok := strings.CutPrefix(h, "*."); ok {
			if strings.HasSuffix(host, "."+suffix) {
				return true
			}
		} else if host == h {
			return true
		}
	}
	return false
}

// Authorised reports whether the TPP may use the interface at all.
func (e *Entry) Authorised() bool { return e != nil && e.Status == StatusAuthorised }

// GrantedRoles returns the roles present both in certRoles and in the
// register, in the order of certRoles. The register is authoritative: a role
// the certificate still carries but the NCA withdrew is not granted. When
// the register grants every role of the certificate (the usual case, on
// every request) the result is certRoles itself, clipped so that an append
// copies: treat it as read-only.
func (e *Entry) GrantedRoles(certRoles []string) []string {
	granted := 0
	for _, r := range certRoles {
		if slices.Contains(e.Roles, r) {
			granted++
		}
	}
	if granted == len(certRoles) {
		return slices.Clip(certRoles)
	}
	out := make([]string, 0, granted)
	for _, r := range certRoles {
		if slices.Contains(e.Roles, r) {
			out = append(out, r)
		}
	}
	return out
}

// ErrNotFound is returned by a Source for an identifier it does not know.
var ErrNotFound = errors.New("registry: TPP not registered")

// ErrUnavailable is returned by Cache when the source failed and no entry,
// fresh or within the stale bound, is known.
var ErrUnavailable = errors.New("registry: source unavailable")
