package caddymodule

import (
	"crypto/x509"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/caddyserver/caddy/v2/modules/caddytls"
)

// reportTrust logs, when the configuration starts, one line per trust
// source: the QTSP CAs, revocation, the register, the bank's seal and the
// TLS certificates the sites serve, with what an operator checks (where
// it comes from, how many, whose, until when).
func (a *App) reportTrust(ctx caddy.Context) {
	if a.backendOnly {
		return
	}
	a.validity.tls = siteCertificates(ctx)
	if len(a.validity.cas) > 0 {
		a.slog.Info("trust: QTSP CAs", "source", a.QTSPCAs, "cas", len(a.validity.cas), "earliest_expiry", earliestExpiry(a.validity.cas))
	}
	crls := "none"
	if a.CRL != "" {
		crls = fmt.Sprintf("%s (%d CRLs)", a.CRL, len(a.validity.crls))
	}
	a.slog.Info("trust: revocation", "crl", crls, "ocsp", a.OCSP)
	switch {
	case a.registryFile != nil:
		a.slog.Info("trust: register", "source", "file "+a.Registry, "entries", len(a.registryFile.OrganizationIdentifiers()))
	case a.Registry != "":
		a.slog.Info("trust: register", "source", "http "+a.Registry, "entries", "asked per TPP")
	}
	// The EBA register reports itself once loaded (registry_eba.go).
	if a.seal != nil {
		c := a.seal.Certificate()
		key := "file " + a.BankSealKey
		if a.sealKey != nil {
			key = a.sealKey.String()
		}
		a.slog.Info("trust: bank seal", "subject", c.Subject.String(), "key", key, "algorithm", a.seal.Algorithm(), "signer", a.seal.Signer(), "not_after", c.NotAfter.UTC().Format(time.RFC3339))
	} else {
		a.slog.Warn("trust: bank seal: none: answers are not signed (bank_seal_cert, bank_seal_key)")
	}
	for _, c := range a.validity.tls {
		a.slog.Info("trust: TLS certificate", "subject", c.Subject.String(), "names", strings.Join(c.DNSNames, " "), "not_after", c.NotAfter.UTC().Format(time.RFC3339))
	}
}

// trustProblems names the trust sources that cannot serve at t, for
// /readyz: no trusted QTSP CA within its validity, a CRL past its
// nextUpdate (its CA's certificates are refused until a new one is
// loaded), the bank's seal or a site's TLS certificate outside its
// validity (TPPs refuse what they sign), the seal's token failing its
// last signature (answers are 503 until it is back).
func (a *App) trustProblems(t time.Time) []string {
	if a.backendOnly {
		return nil
	}
	var down []string
	if a.QTSPTrustedList == "" && !slices.ContainsFunc(a.validity.cas, func(c *x509.Certificate) bool { return valid(c, t) }) {
		down = append(down, "qtsp_cas")
	}
	for _, c := range a.validity.crls {
		if !c.NextUpdate.IsZero() && t.After(c.NextUpdate) {
			down = append(down, "crl")
			break
		}
	}
	if (a.validity.seal != nil && !valid(a.validity.seal, t)) || (a.sealKey != nil && !a.sealKey.Available()) {
		down = append(down, "bank_seal")
	}
	for _, c := range a.validity.tls {
		if !valid(c, t) {
			down = append(down, "tls")
			break
		}
	}
	for _, s := range a.trustSources {
		if s.failsClosed(t) {
			down = append(down, s.name)
		}
	}
	return down
}

func valid(c *x509.Certificate, t time.Time) bool {
	return !t.Before(c.NotBefore) && !t.After(c.NotAfter)
}

func earliestExpiry(certs []*x509.Certificate) string {
	var first time.Time
	for _, c := range certs {
		if first.IsZero() || c.NotAfter.Before(first) {
			first = c.NotAfter
		}
	}
	return first.UTC().Format(time.RFC3339)
}

// siteCertificates returns the TLS certificates the http app's sites
// serve: those the tls app holds for the host names the sites match (it
// keeps no list of its own). All apps are provisioned when Start calls it.
func siteCertificates(ctx caddy.Context) []*x509.Certificate {
	app, err := ctx.AppIfConfigured("http")
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var certs []*x509.Certificate
	for _, srv := range app.(*caddyhttp.App).Servers {
		for _, r := range srv.Routes {
			for _, set := range r.MatcherSets {
				for _, m := range set {
					hosts, ok := m.(*caddyhttp.MatchHost)
					if !ok {
						continue
					}
					for _, h := range *hosts {
						for _, c := range caddytls.AllMatchingCertificates(h) {
							if c.Leaf != nil && !seen[c.Hash()] {
								seen[c.Hash()] = true
								certs = append(certs, c.Leaf)
							}
						}
					}
				}
			}
		}
	}
	return certs
}
