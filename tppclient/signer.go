package tppclient

import (
	"bytes"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Signer signs requests as a TPP: Date, X-Request-ID, Digest,
// TPP-Signature-Certificate and the Signature header. Its fields are read
// only while signing, so one Signer may sign concurrently.
type Signer struct {
	// Key is the private key of the QSealC.
	Key *rsa.PrivateKey
	// Certificate is the DER of the QSealC, sent base64 in
	// TPP-Signature-Certificate.
	Certificate []byte
	// KeyID overrides the keyId; empty means
	// "SN=<upper-case hex serial>,CA=<issuer DN per RFC 2253>" of
	// Certificate (see DefaultKeyID).
	KeyID string
	// SignRequestTarget includes (request-target) in the signature. Real
	// TPP clients of this dialect leave it out.
	SignRequestTarget bool
	// DigestEmptyBody sends Digest (of the empty string) also when the body
	// is empty; a Digest is always sent when there is a body.
	DigestEmptyBody bool
	// Now is the clock for Date; nil means time.Now.
	Now func() time.Time

	defaultKeyID    string // DefaultKeyID of defaultKeyIDFor, filled by NewSigner
	defaultKeyIDFor []byte
}

// NewSigner returns a Signer for a PEM private key (PKCS#8 "PRIVATE KEY" or
// PKCS#1 "RSA PRIVATE KEY") and the PEM certificate that holds its public
// key.
func NewSigner(keyPEM, certPEM []byte) (*Signer, error) {
	key, err := parseRSAKey(keyPEM)
	if err != nil {
		return nil, err
	}
	certBlock := findPEM(certPEM, "CERTIFICATE")
	if certBlock == nil {
		return nil, errors.New("tppclient: no CERTIFICATE block in the certificate PEM")
	}
	cert, err := x509.ParseCertificate(certBlock.Bytes)
	if err != nil {
		return nil, fmt.Errorf("tppclient: parse certificate: %w", err)
	}
	if pub, ok := cert.PublicKey.(*rsa.PublicKey); !ok || !pub.Equal(&key.PublicKey) {
		return nil, errors.New("tppclient: the certificate does not hold the public key of the private key")
	}
	keyID, err := DefaultKeyID(cert)
	if err != nil {
		return nil, err
	}
	return &Signer{
		Key:             key,
		Certificate:     certBlock.Bytes,
		defaultKeyID:    keyID,
		defaultKeyIDFor: certBlock.Bytes,
	}, nil
}

func findPEM(data []byte, typ string) *pem.Block {
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return nil
		}
		if block.Type == typ {
			return block
		}
	}
}

func parseRSAKey(keyPEM []byte) (*rsa.PrivateKey, error) {
	if b := findPEM(keyPEM, "RSA PRIVATE KEY"); b != nil {
		key, err := x509.ParsePKCS1PrivateKey(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("tppclient: parse PKCS#1 key: %w", err)
		}
		return key, nil
	}
	if b := findPEM(keyPEM, "PRIVATE KEY"); b != nil {
		key, err := x509.ParsePKCS8PrivateKey(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("tppclient: parse PKCS#8 key: %w", err)
		}
		rsaKey, ok := key.(*rsa.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("tppclient: the key is %T; rsa-sha256 needs an RSA key", key)
		}
		return rsaKey, nil
	}
	return nil, errors.New(`tppclient: no "PRIVATE KEY" or "RSA PRIVATE KEY" block in the key PEM (encrypted keys are not supported)`)
}

// Sign prepares req for sending body. It sets Date (IMF-fixdate, from Now),
// X-Request-ID (a random UUID unless already set), Digest ("SHA-256=" and
// the base64 SHA-256 of body, when body is not empty or DigestEmptyBody is
// set; otherwise any Digest is removed), TPP-Signature-Certificate, and
// Signature over, in this order: (request-target) when SignRequestTarget,
// date, digest when sent, x-request-id, and psu-id, psu-corporate-id and
// tpp-redirect-uri when set on req. A Signature value with non-ASCII
// characters (from keyId) is encoded per RFC 2047 (mime.BEncoding, utf-8).
// body must be exactly the bytes to send: Sign sets req.Body,
// req.ContentLength and req.GetBody from it.
func (s *Signer) Sign(req *http.Request, body []byte) error {
	if s.Key == nil {
		return errors.New("tppclient: Signer has no Key")
	}
	if len(s.Certificate) == 0 {
		return errors.New("tppclient: Signer has no Certificate")
	}
	keyID, err := s.keyID()
	if err != nil {
		return err
	}
	if strings.ContainsAny(keyID, "\"\r\n") {
		return errors.New(`tppclient: keyId contains '"' or a line break, which a quoted string cannot carry`)
	}
	if req.URL == nil {
		return errors.New("tppclient: request has no URL")
	}
	if req.Header == nil {
		req.Header = http.Header{}
	}
	h := req.Header
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	h.Set("Date", now().UTC().Format(http.TimeFormat))
	if h.Get("X-Request-ID") == "" {
		h.Set("X-Request-ID", uuid.NewString()) // random (version 4)
	}
	sendDigest := len(body) > 0 || s.DigestEmptyBody
	if sendDigest {
		sum := sha256.Sum256(body)
		h.Set("Digest", "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]))
	} else {
		h.Del("Digest")
	}
	h.Set("TPP-Signature-Certificate", base64.StdEncoding.EncodeToString(s.Certificate))

	names, signingString, err := s.signingString(req, sendDigest)
	if err != nil {
		return err
	}
	hashed := sha256.Sum256([]byte(signingString))
	sig, err := rsa.SignPKCS1v15(nil, s.Key, crypto.SHA256, hashed[:])
	if err != nil {
		return fmt.Errorf("tppclient: sign: %w", err)
	}
	value := formatSignature(keyID, algorithmRSASHA256, names, sig)
	h.Set("Signature", value)

	setBody(req, body)
	return nil
}

func (s *Signer) keyID() (string, error) {
	if s.KeyID != "" {
		return s.KeyID, nil
	}
	if s.defaultKeyID != "" && bytes.Equal(s.defaultKeyIDFor, s.Certificate) {
		return s.defaultKeyID, nil
	}
	cert, err := x509.ParseCertificate(s.Certificate)
	if err != nil {
		return "", fmt.Errorf("tppclient: parse Certificate for the keyId: %w", err)
	}
	return DefaultKeyID(cert)
}

// optionalSigned are the headers signed when the request carries them,
// after date, digest and x-request-id.
var optionalSigned = [...]string{"psu-id", "psu-corporate-id", "tpp-redirect-uri"}

// signingString returns the signed header names in order and the signing
// string: one "<name>: <value>" line each, joined with "\n". Values are
// taken as Go's transport will send them (leading and trailing blanks
// trimmed).
func (s *Signer) signingString(req *http.Request, withDigest bool) ([]string, string, error) {
	names := make([]string, 0, 8)
	var sb strings.Builder
	add := func(name, value string) {
		if len(names) > 0 {
			sb.WriteByte('\n')
		}
		names = append(names, name)
		sb.WriteString(name)
		sb.WriteString(": ")
		sb.WriteString(value)
	}
	if s.SignRequestTarget {
		method := req.Method
		if method == "" {
			method = http.MethodGet
		}
		add("(request-target)", strings.ToLower(method)+" "+req.URL.RequestURI())
	}
	required := []string{"date"}
	if withDigest {
		required = append(required, "digest")
	}
	required = append(required, "x-request-id")
	for _, name := range required {
		v, ok, err := singleValue(req.Header, name)
		if err != nil {
			return nil, "", err
		}
		if !ok {
			return nil, "", fmt.Errorf("tppclient: %s header missing", name)
		}
		add(name, v)
	}
	for _, name := range optionalSigned {
		v, ok, err := singleValue(req.Header, name)
		if err != nil {
			return nil, "", err
		}
		if ok {
			add(name, v)
		}
	}
	return names, sb.String(), nil
}

// singleValue returns the one value of a header to sign.
func singleValue(h http.Header, name string) (string, bool, error) {
	vs := h.Values(name)
	switch {
	case len(vs) == 0:
		return "", false, nil
	case len(vs) > 1:
		return "", false, fmt.Errorf("tppclient: %s header set %d times; a signed header may occur once", name, len(vs))
	}
	if strings.ContainsAny(vs[0], "\r\n") {
		return "", false, fmt.Errorf("tppclient: %s header contains a line break", name)
	}
	return textproto.TrimString(vs[0]), true, nil
}

func setBody(req *http.Request, body []byte) {
	req.ContentLength = int64(len(body))
	if len(body) == 0 {
		req.Body = http.NoBody
		req.GetBody = func() (io.ReadCloser, error) { return http.NoBody, nil }
		return
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(body)), nil
	}
}
