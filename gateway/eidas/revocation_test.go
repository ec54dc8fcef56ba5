package eidas

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestLoadCRLs(t *testing.T) {
	p := testPKI(t)
	good := crlPEM(p.CRL)
	issuers := []*x509.Certificate{p.Root.Certificate, p.Issuing.Certificate}
	tests := []struct {
		name    string
		pem     []byte
		issuers []*x509.Certificate
		wantErr string
	}{
		{"issuing CA's CRL", good, issuers, ""},
		{"two CRLs", append(append([]byte{}, good...), good...), issuers, ""},
		{"issuer not configured", good, []*x509.Certificate{p.Root.Certificate}, "not signed by any configured issuer"},
		{"same name, other key", good, []*x509.Certificate{p.Impostor.Certificate}, "not signed by any configured issuer"},
		{"certificate block", []byte(certPEM(p.Root.Certificate)), issuers, `"CERTIFICATE", want "X509 CRL"`},
		{"no PEM", []byte("nothing here"), issuers, "no X509 CRL"},
		{"corrupt CRL", pem.EncodeToMemory(&pem.Block{Type: "X509 CRL", Bytes: p.CRL.Raw[:50]}), issuers, "CRL 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadCRLs(tt.pem, tt.issuers)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestCRLNextUpdates: each loaded CRL's nextUpdate, named by its CA.
func TestCRLNextUpdates(t *testing.T) {
	p := testPKI(t)
	good := crlPEM(p.CRL)
	c, err := LoadCRLs(append(append([]byte{}, good...), good...), []*x509.Certificate{p.Issuing.Certificate})
	if err != nil {
		t.Fatal(err)
	}
	got := c.NextUpdates()
	want := CRLValidity{Issuer: p.Issuing.Certificate.Subject.CommonName, NextUpdate: p.CRL.NextUpdate}
	if len(got) != 2 || got[0] != want || got[1] != want || want.Issuer == "" || want.NextUpdate.IsZero() {
		t.Fatalf("NextUpdates = %+v, want twice %+v", got, want)
	}
}

func TestCRLCheckerRevoked(t *testing.T) {
	p := testPKI(t)
	c, err := LoadCRLs(crlPEM(p.CRL), []*x509.Certificate{p.Issuing.Certificate})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		cert, issuer *x509.Certificate
		now          time.Time
		want         bool
		wantErr      string
	}{
		{name: "good seal", cert: p.TPP("tpp").Seal.Certificate, issuer: p.Issuing.Certificate},
		{name: "revoked seal", cert: p.TPP("revoked").Seal.Certificate, issuer: p.Issuing.Certificate, want: true},
		{name: "revoked qwac", cert: p.TPP("revoked").Web.Certificate, issuer: p.Issuing.Certificate, want: true},
		{name: "issuer without CRL", cert: p.Issuing.Certificate, issuer: p.Root.Certificate},
		{name: "same name, other key", cert: p.TPP("untrusted").Seal.Certificate, issuer: p.Impostor.Certificate},
		{name: "issuer mismatch", cert: p.TPP("revoked").Seal.Certificate, issuer: p.Root.Certificate, wantErr: "does not match"},
		{name: "stale CRL", cert: p.TPP("tpp").Seal.Certificate, issuer: p.Issuing.Certificate, now: p.CRL.NextUpdate.Add(time.Second), wantErr: "stale"},
		{name: "stale CRL still proves a revocation", cert: p.TPP("revoked").Seal.Certificate, issuer: p.Issuing.Certificate, now: p.CRL.NextUpdate.Add(time.Second), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.Now = nil
			if !tt.now.IsZero() {
				c.Now = func() time.Time { return tt.now }
			}
			got, err := c.Revoked(tt.cert, tt.issuer)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Revoked = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestVerifyStaleCRLFailsClosed(t *testing.T) {
	p := testPKI(t)
	c, err := LoadCRLs(crlPEM(p.CRL), []*x509.Certificate{p.Issuing.Certificate})
	if err != nil {
		t.Fatal(err)
	}
	c.Now = func() time.Time { return p.CRL.NextUpdate.Add(time.Hour) }
	v := &Verifier{Roots: p.QTSPPool(), Intermediates: p.IntermediatePool(), Revocation: c}
	_, err = v.VerifySeal(p.TPP("tpp").Seal.Certificate)
	assertRejected(t, err, KindUnavailable, "cannot be checked")
}

// outageChecker cannot tell the status of end-entity certificates (the
// responder is down) and answers caRevoked for CA certificates.
type outageChecker struct{ caRevoked bool }

func (c outageChecker) Revoked(cert, _ *x509.Certificate) (bool, error) {
	if !cert.IsCA {
		return false, errors.New("OCSP responder unreachable; CRL distribution point unreachable")
	}
	return c.caRevoked, nil
}

// TestVerifyRevocationUnknown: a certificate whose status cannot be
// established is rejected as KindUnavailable but keeps its verified
// identity, for on_error policies; a revoked CA further up the chain still
// makes it KindRevoked, without an identity.
func TestVerifyRevocationUnknown(t *testing.T) {
	p := testPKI(t)
	tpp := mustTPP(t, p, "tpp")
	v := &Verifier{Roots: p.QTSPPool(), Intermediates: p.IntermediatePool(), Revocation: outageChecker{}}
	id, err := v.VerifySeal(tpp.Seal.Certificate)
	assertRejected(t, err, KindUnavailable, "cannot be checked")
	if id == nil || id.OrganizationIdentifier != tpp.OrganizationIdentifier || len(id.Roles) == 0 || id.Certificate != tpp.Seal.Certificate {
		t.Fatalf("identity %+v", id)
	}
	if id, err := v.VerifyWeb(tpp.Web.Certificate); KindOf(err) != KindUnavailable || id == nil {
		t.Fatalf("QWAC: %v %v", id, err)
	}
	v.Revocation = outageChecker{caRevoked: true}
	id, err = v.VerifySeal(tpp.Seal.Certificate)
	assertRejected(t, err, KindRevoked, "CA in the")
	if id != nil {
		t.Fatal("identity returned for a revoked chain")
	}
}
