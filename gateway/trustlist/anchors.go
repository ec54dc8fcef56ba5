package trustlist

import (
	"bytes"
	"crypto/x509"
	"fmt"
	"slices"
	"time"
)

// Use is what a certificate is checked for: the ForeSeals or
// ForWebSiteAuthentication a qualified CA service must be granted for.
type Use string

// The uses obgw checks.
const (
	UseSeal Use = ForESeals
	UseWeb  Use = ForWebSiteAuthentication
)

// qualifiedStatuses are the statuses under which a CA/QC service issued
// qualified certificates: granted (eIDAS), and before July 2016 under
// supervision or accredited (Directive 1999/93/EC).
var qualifiedStatuses = []string{StatusGranted, statusUnderSupervision, statusAccredited}

// notQualified is the qualifier saying a service's certificates are not
// qualified.
const notQualified = extPrefix + "NotQualified"

// Anchors are the qualified CAs of a set of verified national lists:
// for each use, the certificates Go's chain verification may end at, and
// each service's status history, which decides whether the chain's CA
// was qualified for the use when the certificate was issued. Read-only
// once made.
type Anchors struct {
	pools     map[Use]*x509.CertPool
	services  []anchor
	grace     time.Duration
	now       func() time.Time
	lists     []*List
	summaries []Summary
}

type anchor struct {
	list    *List
	service Service
}

// Summary is what one list in use is.
type Summary struct {
	Territory  string
	Sequence   int
	NextUpdate time.Time
	Services   int // CA/QC services
}

// NewAnchors collects the CA/QC services of lists. A list past its
// NextUpdate by more than grace (by now; nil is time.Now), or without
// one (a closed scheme), is stale: Qualified refuses its CAs'
// certificates as unavailable, not as untrusted.
func NewAnchors(lists []*List, grace time.Duration, now func() time.Time) *Anchors {
	if now == nil {
		now = time.Now
	}
	a := &Anchors{pools: map[Use]*x509.CertPool{UseSeal: x509.NewCertPool(), UseWeb: x509.NewCertPool(), useAny: x509.NewCertPool()}, grace: grace, now: now}
	a.lists = lists
	for _, l := range lists {
		sum := Summary{Territory: l.Territory, Sequence: l.Sequence, NextUpdate: l.NextUpdate}
		for _, s := range l.Services {
			if !slices.ContainsFunc(s.History, func(st Status) bool { return st.Type == ServiceTypeCAQC }) {
				continue
			}
			a.services = append(a.services, anchor{list: l, service: s})
			sum.Services++
			for _, c := range s.Certificates {
				a.pools[useAny].AddCert(c)
			}
			for _, use := range []Use{UseSeal, UseWeb} {
				if slices.ContainsFunc(s.History, func(st Status) bool { return qualifiedFor(st, use) }) {
					for _, c := range s.Certificates {
						a.pools[use].AddCert(c)
					}
				}
			}
		}
		a.summaries = append(a.summaries, sum)
	}
	return a
}

// Stale reports whether l is past its NextUpdate and the grace.
func (a *Anchors) Stale(l *List) bool {
	return l.NextUpdate.IsZero() || a.now().After(l.NextUpdate.Add(a.grace))
}

// StaleTerritories are the territories whose lists are stale now.
func (a *Anchors) StaleTerritories() []string {
	var out []string
	for _, l := range a.lists {
		if a.Stale(l) {
			out = append(out, l.Territory)
		}
	}
	return out
}

// useAny pools every CA/QC service's certificates, whatever its use.
const useAny Use = ""

// Pool is the CAs a chain for use may end at: every CA certificate of a
// service qualified for use at some time (Qualified then checks the
// time).
func (a *Anchors) Pool(use Use) *x509.CertPool { return a.pools[use] }

// AnyPool is every CA/QC service's CA, whatever it is qualified for: a
// chain refused by Pool(use) that ends here was issued by a qualified CA
// not granted for use, which Qualified then says.
func (a *Anchors) AnyPool() *x509.CertPool { return a.pools[useAny] }

// Len is the number of CA/QC services.
func (a *Anchors) Len() int { return len(a.services) }

// Unqualified says why a chain is refused.
type Unqualified struct {
	// Stale is set when the CA's list is past its NextUpdate and grace:
	// a refusal for now, not a verdict on the certificate.
	Stale  bool
	Reason string
}

func (u *Unqualified) Error() string { return u.Reason }

// Qualified checks a verified chain (leaf first) for use: the first CA
// of the chain that a trusted list names must have been a CA/QC service
// qualified for use when the leaf was issued (its notBefore), by the
// status in force then; a service withdrawn since still vouches for what
// it issued while granted.
func (a *Anchors) Qualified(chain []*x509.Certificate, use Use) error {
	if len(chain) < 2 {
		return &Unqualified{Reason: "the certificate's chain has no CA"}
	}
	issued := chain[0].NotBefore
	for _, ca := range chain[1:] {
		for _, an := range a.services {
			if !slices.ContainsFunc(an.service.Certificates, func(c *x509.Certificate) bool { return sameCA(c, ca) }) {
				continue
			}
			territory := an.list.Territory
			if a.Stale(an.list) {
				return &Unqualified{Stale: true, Reason: fmt.Sprintf("the trusted list of %s, which names the CA %q, is past its next update: its certificates are refused until a current list is fetched", territory, ca.Subject.CommonName)}
			}
			st, ok := statusAt(an.service.History, issued)
			switch {
			case !ok:
				return &Unqualified{Reason: fmt.Sprintf("the CA %q (%s) was not yet a trust service when the certificate was issued (%s)", ca.Subject.CommonName, territory, issued.UTC().Format(time.RFC3339))}
			case !qualifiedFor(st, use):
				return &Unqualified{Reason: fmt.Sprintf("the CA %q (%s, %s) was not qualified for %s when the certificate was issued (%s): status %s since %s",
					ca.Subject.CommonName, territory, an.service.Name, useName(use), issued.UTC().Format(time.RFC3339), shortURI(st.Status), st.Since.UTC().Format(time.DateOnly))}
			}
			return nil
		}
	}
	return &Unqualified{Reason: "no CA of the certificate's chain is a qualified trust service of the EU trusted lists"}
}

// qualifiedFor reports whether a status is that of a CA/QC service
// qualified for use: a qualified status, use among its additional
// service information, and no NotQualified qualifier.
func qualifiedFor(st Status, use Use) bool {
	return st.Type == ServiceTypeCAQC && slices.Contains(qualifiedStatuses, st.Status) &&
		slices.Contains(st.Uses, string(use)) && !slices.Contains(st.Qualifiers, notQualified)
}

// statusAt is the status in force at t: the newest that began at or
// before t.
func statusAt(history []Status, t time.Time) (Status, bool) {
	var best Status
	found := false
	for _, st := range history {
		if !st.Since.After(t) && (!found || st.Since.After(best.Since)) {
			best, found = st, true
		}
	}
	return best, found
}

// sameCA reports whether the list's certificate c is the chain's CA: the
// same certificate, or the same subject and key (a CA certificate
// re-issued with other dates).
func sameCA(c, ca *x509.Certificate) bool {
	return c.Equal(ca) || (bytes.Equal(c.RawSubject, ca.RawSubject) && bytes.Equal(c.RawSubjectPublicKeyInfo, ca.RawSubjectPublicKeyInfo))
}

func useName(u Use) string {
	switch u {
	case UseSeal:
		return "electronic seals"
	case UseWeb:
		return "website authentication"
	}
	return string(u)
}

func shortURI(u string) string {
	if i := bytes.LastIndexByte([]byte(u), '/'); i >= 0 {
		return u[i+1:]
	}
	return u
}
