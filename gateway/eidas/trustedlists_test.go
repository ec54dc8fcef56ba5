package eidas

import (
	"crypto/x509"
	"strings"
	"testing"
	"time"

	"github.com/obgw/obgw/gateway/trustlist"
)

// TestVerifyWithTrustedLists: with the EU trusted lists deciding, a QSealC
// verifies when the list names its CA as qualified for seals when it was
// issued; its QWAC is refused when the CA is not granted for website
// authentication (CERTIFICATE_INVALID's kind); no lists loaded, and a
// list past its next update and grace, fail closed as unavailable.
func TestVerifyWithTrustedLists(t *testing.T) {
	p := testPKI(t)
	tpp := mustTPP(t, p, "tpp")
	now := time.Now()
	list := &trustlist.List{Territory: "NO", NextUpdate: now.AddDate(0, 3, 0), Services: []trustlist.Service{{
		Name: "Test QTSP Issuing CA", Certificates: []*x509.Certificate{p.Issuing.Certificate},
		History: []trustlist.Status{{Type: trustlist.ServiceTypeCAQC, Status: trustlist.StatusGranted, Since: tpp.Seal.Certificate.NotBefore.AddDate(-1, 0, 0),
			Uses: []string{trustlist.ForESeals}}},
	}}}
	anchors := trustlist.NewAnchors([]*trustlist.List{list}, 7*24*time.Hour, nil)
	v := &Verifier{TrustedLists: func() *trustlist.Anchors { return anchors }, Intermediates: p.IntermediatePool()}
	if _, err := v.VerifySeal(tpp.Seal.Certificate); err != nil {
		t.Fatalf("a QSealC of a CA granted for seals: %v", err)
	}
	_, err := v.VerifyWeb(tpp.Web.Certificate)
	if KindOf(err) != KindInvalid {
		t.Fatalf("a QWAC of a CA granted for seals only: %v", err)
	}
	none := &Verifier{TrustedLists: func() *trustlist.Anchors { return nil }}
	if _, err := none.VerifySeal(tpp.Seal.Certificate); KindOf(err) != KindUnavailable || !strings.Contains(err.Error(), "not loaded") {
		t.Fatalf("no lists loaded: %v", err)
	}
	list.NextUpdate = now.AddDate(0, 0, -8)
	if _, err := v.VerifySeal(tpp.Seal.Certificate); KindOf(err) != KindUnavailable || !strings.Contains(err.Error(), "past its next update") {
		t.Fatalf("a stale list: %v", err)
	}
}
