package caddymodule

import (
	"crypto/x509"
	"slices"
	"testing"
	"time"

	"github.com/obgw/obgw/gateway/eidas"
)

// TestTrustProblems: /readyz's trust sources, each outside its validity
// on its own.
func TestTrustProblems(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	cert := func(from, until time.Duration) *x509.Certificate {
		return &x509.Certificate{NotBefore: now.Add(from), NotAfter: now.Add(until)}
	}
	good := func() validity {
		return validity{
			cas:  []*x509.Certificate{cert(-time.Hour, -time.Minute), cert(-time.Hour, time.Hour)},
			crls: []eidas.CRLValidity{{Issuer: "CA", NextUpdate: now.Add(time.Hour)}, {Issuer: "CA 2"}},
			seal: cert(-time.Hour, time.Hour),
			tls:  []*x509.Certificate{cert(-time.Hour, time.Hour)},
		}
	}
	for _, tt := range []struct {
		name   string
		change func(*validity)
		want   []string
	}{
		{"all valid", func(*validity) {}, nil},
		{"every CA expired", func(v *validity) { v.cas = v.cas[:1] }, []string{"qtsp_cas"}},
		{"no CA yet valid", func(v *validity) { v.cas = []*x509.Certificate{cert(time.Minute, time.Hour)} }, []string{"qtsp_cas"}},
		{"CRL past nextUpdate", func(v *validity) { v.crls[0].NextUpdate = now.Add(-time.Second) }, []string{"crl"}},
		{"seal expired", func(v *validity) { v.seal = cert(-time.Hour, -time.Second) }, []string{"bank_seal"}},
		{"no seal", func(v *validity) { v.seal = nil }, nil},
		{"TLS expired", func(v *validity) { v.tls = append(v.tls, cert(-time.Hour, -time.Second)) }, []string{"tls"}},
	} {
		v := good()
		tt.change(&v)
		a := &App{validity: v}
		if got := a.trustProblems(now); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
