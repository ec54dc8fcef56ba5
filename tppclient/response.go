package tppclient

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
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
	var certs []*x509.Certificate
	for rest := certPEM; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("tppclient: the bank certificate PEM: %w", err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, errors.New("tppclient: the bank certificate PEM holds no CERTIFICATE block")
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
	p, err := parseSignature(vals[0])
	if err != nil {
		return nil, err
	}
	kid, err := parseKeyID(p.keyID)
	if err != nil {
		return nil, fmt.Errorf("the response's %v", err)
	}
	var cert *x509.Certificate
	for _, c := range v.certs {
		if kid.names(c) {
			cert = c
			break
		}
	}
	if cert == nil {
		return nil, fmt.Errorf("the response is signed with keyId %q, which names no trusted bank certificate", p.keyID)
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
		if !slices.Contains(p.headers, n) {
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
	if err := checkDigest(h.Get("Digest"), body); err != nil {
		return nil, err
	}
	ss, err := responseSigningString(p.headers, h)
	if err != nil {
		return nil, err
	}
	if alg, _ := sealAlgorithm(cert); p.algorithm != alg {
		return nil, fmt.Errorf("the response is signed %s; the bank certificate %q's key signs %s", p.algorithm, cert.Subject.CommonName, alg)
	}
	sum := sha256.Sum256(ss)
	switch pub := cert.PublicKey.(type) {
	case *rsa.PublicKey:
		err = rsa.VerifyPKCS1v15(pub, crypto.SHA256, sum[:], p.signature)
	case *ecdsa.PublicKey:
		if !ecdsa.VerifyASN1(pub, sum[:], p.signature) {
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
		return algorithmRSASHA256, nil
	case *ecdsa.PublicKey:
		if k.Curve == elliptic.P256() {
			return algorithmECDSASHA256, nil
		}
		return "", fmt.Errorf("an ECDSA key on %s; ecdsa-sha256 needs P-256", k.Curve.Params().Name)
	}
	return "", fmt.Errorf("a %T key; a seal signs with RSA or ECDSA P-256", c.PublicKey)
}

// responseSigningString is the signing string of a response: one
// "<name>: <value>" line per signed header, in the order signed, joined
// with "\n". Each signed header must be there exactly once.
func responseSigningString(names []string, h http.Header) ([]byte, error) {
	var b []byte
	for i, n := range names {
		vals := h.Values(n)
		if len(vals) != 1 {
			return nil, fmt.Errorf("the response signs %s, which it carries %d times; a signed header is sent once", n, len(vals))
		}
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, n...)
		b = append(b, ": "...)
		b = append(b, vals[0]...)
	}
	return b, nil
}

// checkDigest checks a response's Digest header against the body bytes
// received: comma-separated <algorithm>=<base64> elements; every SHA-256
// and SHA-512 one (in any letter case) must match, and one must be
// there. Other algorithms are not read.
func checkDigest(value string, body []byte) error {
	found := false
	for _, elem := range strings.Split(value, ",") {
		alg, enc, ok := strings.Cut(strings.Trim(elem, " \t"), "=")
		if !ok {
			return fmt.Errorf("the response's Digest %q is not <algorithm>=<base64>", value)
		}
		var sum []byte
		switch {
		case strings.EqualFold(alg, "SHA-256"):
			s := sha256.Sum256(body)
			sum = s[:]
		case strings.EqualFold(alg, "SHA-512"):
			s := sha512.Sum512(body)
			sum = s[:]
		default:
			continue
		}
		got, err := base64.StdEncoding.Strict().DecodeString(enc)
		if err != nil || subtle.ConstantTimeCompare(got, sum) != 1 {
			return fmt.Errorf("the response's Digest does not match the %d body bytes received", len(body))
		}
		found = true
	}
	if !found {
		return errors.New("the response's Digest has no SHA-256 or SHA-512 value")
	}
	return nil
}
