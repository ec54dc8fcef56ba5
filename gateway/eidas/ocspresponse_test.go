package eidas

import (
	"crypto"
	"crypto/x509"
	"encoding/asn1"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/obgw/obgw/testpki"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
	"golang.org/x/crypto/ocsp"
)

// respond returns r's answer to req, which must be a signed response.
func respond(t testing.TB, r *testpki.OCSPResponder, req []byte) []byte {
	t.Helper()
	der := r.Respond(req)
	if len(der) < 10 {
		t.Fatalf("responder answered %x", der)
	}
	return der
}

// TestVerifyOCSPResponse covers what the HTTP tests cannot reach easily:
// CertIDs naming another CA, SHA-256 CertIDs, responses about other
// serials.
func TestVerifyOCSPResponse(t *testing.T) {
	rs := revocationFixture(t)
	p := rs.p
	now := rs.clock.Now()
	want := ocspExpectation{now: now, skew: defaultClockSkew, maxAge: time.Hour}
	plain := func(cert, issuer *x509.Certificate, h crypto.Hash) []byte {
		req, err := ocsp.CreateRequest(cert, issuer, &ocsp.RequestOptions{Hash: h})
		if err != nil {
			t.Fatal(err)
		}
		return req
	}
	// A responder that believes in the impostor CA's key (same name as
	// the issuing CA) but signs with the issuing CA's key.
	confused := rs.newResponder()
	confused.Issuer = p.Impostor.Certificate
	otherKP, err := p.IssueTPPCertificate("aisp", testpki.Seal, testpki.RevocationURLs{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		der     []byte
		want    ocspAnswer
		wantErr string
	}{
		{name: "good", der: respond(t, rs.responder, plain(rs.good, rs.issuer, crypto.SHA1)), want: ocspAnswer{thisUpdate: now, nextUpdate: now.Add(time.Hour)}},
		{name: "good, SHA-256 CertID", der: respond(t, rs.responder, plain(rs.good, rs.issuer, crypto.SHA256)), want: ocspAnswer{thisUpdate: now, nextUpdate: now.Add(time.Hour)}},
		{name: "good, SHA-512 CertID", der: respond(t, rs.responder, plain(rs.good, rs.issuer, crypto.SHA512)), want: ocspAnswer{thisUpdate: now, nextUpdate: now.Add(time.Hour)}},
		{name: "CertID names another CA's key", der: respond(t, confused, plain(rs.good, p.Impostor.Certificate, crypto.SHA1)), wantErr: "another CA"},
		{name: "answer about another serial", der: respond(t, rs.responder, plain(otherKP.Certificate, rs.issuer, crypto.SHA1)), wantErr: "no response matching"},
		{name: "empty", der: nil, wantErr: "malformed OCSP response"},
		{name: "error status", der: []byte{0x30, 0x03, 0x0a, 0x01, 0x06}, wantErr: `answered "unauthorized"`},
		{name: "truncated", der: respond(t, rs.responder, plain(rs.good, rs.issuer, crypto.SHA1))[:200], wantErr: "malformed OCSP response"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := verifyOCSPResponse(tt.der, rs.good, rs.issuer, want)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				if len(err.Error()) >= 200 {
					t.Errorf("error of %d characters", len(err.Error()))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("answer %+v, want %+v", got, tt.want)
			}
		})
	}
}

// responseData builds a DER ResponseData with one answer about serial
// with the given certStatus element, followed by raw extensions.
func responseData(serial int64, status []byte, exts ...[]byte) []byte {
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1(tagResponderKey, func(b *cryptobyte.Builder) { b.AddASN1OctetString(make([]byte, 20)) })
		b.AddASN1GeneralizedTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
				b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
					b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { b.AddASN1ObjectIdentifier(oidSHA1) })
					b.AddASN1OctetString([]byte{1})
					b.AddASN1OctetString([]byte{2})
					b.AddASN1Int64(serial)
				})
				b.AddBytes(status)
				b.AddASN1GeneralizedTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
			})
		})
		if len(exts) > 0 {
			b.AddASN1(tagExtensions, func(b *cryptobyte.Builder) {
				b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
					for _, e := range exts {
						b.AddBytes(e)
					}
				})
			})
		}
	})
	return b.BytesOrPanic()
}

// extension encodes an Extension.
func extension(id asn1.ObjectIdentifier, critical bool, value []byte) []byte {
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1ObjectIdentifier(id)
		if critical {
			b.AddASN1Boolean(true)
		}
		b.AddASN1OctetString(value)
	})
	return b.BytesOrPanic()
}

func TestParseOCSPResponseData(t *testing.T) {
	good := []byte{0x80, 0x00}
	unknown := []byte{0x82, 0x00}
	revoked := []byte{0xa1, 0x11, 0x18, 0x0f, '2', '0', '2', '6', '0', '1', '0', '1', '0', '0', '0', '0', '0', '0', 'Z'}
	nonce := extension(oidOCSPNonce, false, []byte{4, 2, 7, 7})
	other := asn1.ObjectIdentifier{1, 2, 3, 4}
	tests := []struct {
		name       string
		tbs        []byte
		wantStatus int
		wantNonce  []byte
		wantErr    string
	}{
		{name: "good", tbs: responseData(42, good), wantStatus: ocsp.Good},
		{name: "revoked", tbs: responseData(42, revoked), wantStatus: ocsp.Revoked},
		{name: "unknown", tbs: responseData(42, unknown), wantStatus: ocsp.Unknown},
		{name: "nonce", tbs: responseData(42, good, nonce), wantStatus: ocsp.Good, wantNonce: []byte{4, 2, 7, 7}},
		{name: "non-critical other extension", tbs: responseData(42, good, extension(other, false, nil), nonce), wantStatus: ocsp.Good, wantNonce: []byte{4, 2, 7, 7}},
		{name: "critical other extension", tbs: responseData(42, good, extension(other, true, nil)), wantErr: "critical extension"},
		{name: "two nonces", tbs: responseData(42, good, nonce, nonce), wantErr: "two nonce"},
		{name: "other serial", tbs: responseData(43, good), wantErr: "no answer about"},
		{name: "bad status tag", tbs: responseData(42, []byte{0x83, 0x00}), wantErr: "does not decode"},
		{name: "trailing data", tbs: append(responseData(42, good), 0), wantErr: "does not decode"},
		{name: "empty", tbs: nil, wantErr: "does not decode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := parseOCSPResponseData(tt.tbs, big.NewInt(42))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.status != tt.wantStatus || d.hash != crypto.SHA1 || string(d.nameHash) != "\x01" || string(d.keyHash) != "\x02" {
				t.Errorf("got status %d hash %v name %x key %x", d.status, d.hash, d.nameHash, d.keyHash)
			}
			if d.hasNonce != (tt.wantNonce != nil) || string(d.nonce) != string(tt.wantNonce) {
				t.Errorf("nonce %x (%v), want %x", d.nonce, d.hasNonce, tt.wantNonce)
			}
		})
	}
}

func TestNewOCSPRequest(t *testing.T) {
	rs := revocationFixture(t)
	for _, withNonce := range []bool{false, true} {
		req, err := newOCSPRequest(rs.good, rs.issuer, withNonce)
		if err != nil {
			t.Fatal(err)
		}
		// The independent parser agrees on the CertID.
		parsed, err := ocsp.ParseRequest(req.der)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ocsp.CreateRequest(rs.good, rs.issuer, nil)
		if err != nil {
			t.Fatal(err)
		}
		wantParsed, _ := ocsp.ParseRequest(want)
		if parsed.HashAlgorithm != crypto.SHA1 || parsed.SerialNumber.Cmp(rs.good.SerialNumber) != 0 ||
			string(parsed.IssuerNameHash) != string(wantParsed.IssuerNameHash) || string(parsed.IssuerKeyHash) != string(wantParsed.IssuerKeyHash) {
			t.Errorf("CertID %+v, want %+v", parsed, wantParsed)
		}
		if withNonce != (req.nonce != nil) || withNonce && (len(req.nonce) != 34 || req.nonce[0] != 0x04 || req.nonce[1] != 32) {
			t.Errorf("nonce %x with withNonce %v", req.nonce, withNonce)
		}
		if !withNonce && string(req.der) != string(want) {
			t.Error("request without nonce differs from x/crypto/ocsp's encoding")
		}
	}
}
