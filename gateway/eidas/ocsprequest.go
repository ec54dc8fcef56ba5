package eidas

import (
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"encoding/asn1"
	"errors"

	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"

	// Hash functions a response's CertID may use.
	_ "crypto/sha1"
	_ "crypto/sha256"
	_ "crypto/sha512"
)

var (
	oidOCSPNonce = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 48, 1, 2}
	oidSHA1      = asn1.ObjectIdentifier{1, 3, 14, 3, 2, 26}
)

// ocspCertIDHashes maps the hash algorithms a CertID may name.
var ocspCertIDHashes = []struct {
	oid  asn1.ObjectIdentifier
	hash crypto.Hash
}{
	{oidSHA1, crypto.SHA1},
	{asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 1}, crypto.SHA256},
	{asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 2}, crypto.SHA384},
	{asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 3}, crypto.SHA512},
}

// ocspRequest is an encoded OCSP request and what its answer must echo.
type ocspRequest struct {
	der []byte
	// nonce is the extnValue of the nonce extension sent, nil if none.
	nonce []byte
}

// newOCSPRequest encodes an RFC 6960 OCSPRequest for cert's status. The
// CertID uses SHA-1, which every responder supports (RFC 5019). With
// withNonce it carries a random 32-byte nonce (RFC 8954).
func newOCSPRequest(cert, issuer *x509.Certificate, withNonce bool) (ocspRequest, error) {
	nameHash, keyHash, err := issuerHashes(crypto.SHA1, issuer)
	if err != nil {
		return ocspRequest{}, err
	}
	var req ocspRequest
	if withNonce {
		n := make([]byte, 32)
		if _, err := rand.Read(n); err != nil {
			return ocspRequest{}, err
		}
		var b cryptobyte.Builder
		b.AddASN1OctetString(n)
		req.nonce = b.BytesOrPanic()
	}
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { // OCSPRequest
		b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { // TBSRequest
			b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { // requestList
				b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { // Request
					b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { // CertID
						b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
							b.AddASN1ObjectIdentifier(oidSHA1)
							b.AddASN1NULL()
						})
						b.AddASN1OctetString(nameHash)
						b.AddASN1OctetString(keyHash)
						b.AddASN1BigInt(cert.SerialNumber)
					})
				})
			})
			if req.nonce != nil {
				b.AddASN1(cbasn1.Tag(2).ContextSpecific().Constructed(), func(b *cryptobyte.Builder) {
					b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) { // Extensions
						b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
							b.AddASN1ObjectIdentifier(oidOCSPNonce)
							b.AddASN1OctetString(req.nonce)
						})
					})
				})
			}
		})
	})
	if req.der, err = b.Bytes(); err != nil {
		return ocspRequest{}, err
	}
	return req, nil
}

// issuerHashes returns the issuerNameHash and issuerKeyHash of a CertID
// naming issuer: h of its DER subject and of its subjectPublicKey bits.
func issuerHashes(h crypto.Hash, issuer *x509.Certificate) (nameHash, keyHash []byte, err error) {
	if !h.Available() {
		return nil, nil, errors.New("eidas: CertID hash algorithm is not supported")
	}
	spki := cryptobyte.String(issuer.RawSubjectPublicKeyInfo)
	var body cryptobyte.String
	var key []byte
	if !spki.ReadASN1(&body, cbasn1.SEQUENCE) || !body.SkipASN1(cbasn1.SEQUENCE) || !body.ReadASN1BitStringAsBytes(&key) {
		return nil, nil, errors.New("eidas: issuer public key does not decode")
	}
	d := h.New()
	d.Write(issuer.RawSubject)
	nameHash = d.Sum(nil)
	d.Reset()
	d.Write(key)
	return nameHash, d.Sum(nil), nil
}
