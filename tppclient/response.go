package tppclient

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/obgw/obgw/gateway/digest"
	"github.com/obgw/obgw/gateway/signature"
	"github.com/obgw/obgw/pemfile"
)

// ErrUnsigned is the error of Verify for a response without a Signature.
var ErrUnsigned = errors.New("the response is not signed (no Signature header)")

// ResponseVerifier checks the bank's signatures on responses against the
// bank seal certificates a TPP trusts (pinned, as a TPP pins a bank's
// QSealC), not against whatever certificate a response carries.
type ResponseVerifier struct {
	certs []*x509.Certificate
	// MaxClockSkew bounds how far the signed Date may be from the local
	// clock; zero means 5 minutes.
	MaxClockSkew time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// NewResponseVerifier trusts the certificates in certPEM (one or more; a
// bank rotating its seal publishes both).
func NewResponseVerifier(certPEM []byte) (*ResponseVerifier, error) {
	certs, err := pemfile.Certificates(certPEM)
	if err != nil {
		return nil, fmt.Errorf("tppclient: the bank certificate PEM: %w", err)
	}
	for _, c := range certs {
		if _, err := sealAlgorithm(c); err != nil {
			return nil, fmt.Errorf("tppclient: the bank certificate %q: %w", c.Subject.CommonName, err)
		}
	}
	v := &ResponseVerifier{certs: certs}
	return v, nil
}

// Verify checks the signature of a response whose body is exactly body
// (as received, before any decompression), to a request sent with
// X-Request-ID requestID (empty: the request had none). It returns the
// bank's certificate that verified it. The checks: exactly one Signature,
// strictly parsed; its keyId names a trusted certificate; date, digest and
// (with a requestID) x-request-id are signed, the signed x-request-id is
// requestID and the Date within MaxClockSkew; the Digest matches body; the
// signature verifies with the algorithm the certificate's key signs
// (rsa-sha256 for RSA, ecdsa-sha256 for P-256). A response carrying
// ASPSP-Signature-Certificate
// must carry the trusted certificate there.
func (v *ResponseVerifier) Verify(h http.Header, body []byte, requestID string) (*x509.Certificate, error) {
	vals := h.Values("Signature")
	switch {
	case len(vals) == 0:
		return nil, ErrUnsigned
	case len(vals) > 1:
		return nil, fmt.Errorf("the response has %d Signature headers; a signed response has one", len(vals))
	}
	p, err := signature.ParseSeal(vals[0])
	if err != nil {
		return nil, err
	}
	kid, err := signature.ParseKeyID(p.KeyID)
	if err != nil {
		return nil, fmt.Errorf("the response's %v", err)
	}
	var cert *x509.Certificate
	for _, c := range v.certs {
		if kid.Matches(c) {
			cert = c
			break
		}
	}
	if cert == nil {
		return nil, fmt.Errorf("the response is signed with keyId %q, which names no trusted bank certificate", p.KeyID)
	}
	if sent := h.Get("ASPSP-Signature-Certificate"); sent != "" {
		der, err := base64.StdEncoding.DecodeString(sent)
		if err != nil || !slices.Equal(der, cert.Raw) {
			return nil, errors.New("ASPSP-Signature-Certificate is not the trusted bank certificate the keyId names")
		}
	}
	need := []string{"date", "digest"}
	if requestID != "" {
		need = append(need, "x-request-id")
	}
	for _, n := range need {
		if !slices.Contains(p.Headers, n) {
			return nil, fmt.Errorf("the response signature does not cover %s", n)
		}
	}
	if requestID != "" && h.Get("X-Request-Id") != requestID {
		return nil, fmt.Errorf("the response's X-Request-ID %q is not the request's %q", h.Get("X-Request-Id"), requestID)
	}
	date, err := http.ParseTime(h.Get("Date"))
	if err != nil {
		return nil, fmt.Errorf("the response's Date %q is not an HTTP date", h.Get("Date"))
	}
	now, skew := time.Now(), v.MaxClockSkew
	if v.Now != nil {
		now = v.Now()
	}
	if skew == 0 {
		skew = 5 * time.Minute
	}
	if d := now.Sub(date); d > skew || d < -skew {
		return nil, fmt.Errorf("the response's Date %s is %s from now", h.Get("Date"), d.Round(time.Second))
	}
	dg, err := digest.Parse(h.Get("Digest"))
	if err != nil {
		return nil, fmt.Errorf("the response's %v", err)
	}
	if err := dg.Verify(body); err != nil {
		return nil, fmt.Errorf("the response's Digest does not match the %d body bytes received", len(body))
	}
	ss, err := signature.AppendSigningString(nil, p.Headers, "", "", h)
	if err != nil {
		return nil, fmt.Errorf("the response's signed headers: %v", err)
	}
	if alg, _ := sealAlgorithm(cert); p.Algorithm != alg {
		return nil, fmt.Errorf("the response is signed %s; the bank certificate %q's key signs %s", p.Algorithm, cert.Subject.CommonName, alg)
	}
	switch pub := cert.PublicKey.(type) {
	case *rsa.PublicKey:
		err = signature.Verify(pub, ss, p.Signature)
	case *ecdsa.PublicKey:
		sum := sha256.Sum256(ss)
		if !ecdsa.VerifyASN1(pub, sum[:], p.Signature) {
			err = errors.New("ecdsa: verification error")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("the response signature does not verify with the bank certificate %q", cert.Subject.CommonName)
	}
	return cert, nil
}

// sealAlgorithm is the signature algorithm of a bank seal certificate's
// key: rsa-sha256 for RSA, ecdsa-sha256 for P-256 (gateway/seal).
func sealAlgorithm(c *x509.Certificate) (string, error) {
	switch k := c.PublicKey.(type) {
	case *rsa.PublicKey:
		return signature.AlgorithmRSASHA256, nil
	case *ecdsa.PublicKey:
		if k.Curve == elliptic.P256() {
			return signature.AlgorithmECDSASHA256, nil
		}
		return "", fmt.Errorf("an ECDSA key on %s; ecdsa-sha256 needs P-256", k.Curve.Params().Name)
	}
	return "", fmt.Errorf("a %T key; a seal signs with RSA or ECDSA P-256", c.PublicKey)
}
