package eidas

import (
	"bytes"
	"crypto"
	"crypto/x509"
	"encoding/asn1"
	"errors"
	"fmt"
	"math/big"
	"time"

	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
	"golang.org/x/crypto/ocsp"
)

// ocspAnswer is the verified status of one certificate.
type ocspAnswer struct {
	revoked bool
	// hold: revoked with reason certificateHold, which the CA may lift;
	// every other revocation is final.
	hold                   bool
	thisUpdate, nextUpdate time.Time
}

// ocspExpectation is what a response must satisfy besides being about the
// certificate and signed for its issuer.
type ocspExpectation struct {
	// nonce is the nonce extnValue the request carried; nil if none.
	nonce []byte
	now   time.Time
	// skew is the clock difference tolerated on thisUpdate and nextUpdate.
	skew time.Duration
	// maxAge bounds the age of a response without nextUpdate.
	maxAge time.Duration
}

// verifyOCSPResponse checks a DER OCSPResponse about cert, issued by
// issuer: a successful basic response, signed by issuer or by a delegated
// responder certificate that issuer issued for OCSPSigning and that is
// valid now; an answer whose CertID names cert's serial, issuer's name and
// issuer's key; thisUpdate not in the future and nextUpdate not past
// (within skew), or without nextUpdate no older than maxAge; the nonce if
// one was sent; and status good or revoked ("unknown" is an error).
func verifyOCSPResponse(der []byte, cert, issuer *x509.Certificate, want ocspExpectation) (ocspAnswer, error) {
	// Without an issuer the parser checks only the signature of an
	// embedded responder certificate; checkOCSPSigner does the rest, so
	// that a response embedding the issuer itself is accepted too.
	resp, err := ocsp.ParseResponseForCert(der, cert, nil)
	if err != nil {
		return ocspAnswer{}, ocspParseError(err)
	}
	if err := checkOCSPSigner(resp, issuer, want.now); err != nil {
		return ocspAnswer{}, err
	}
	data, err := parseOCSPResponseData(resp.TBSResponseData, cert.SerialNumber)
	if err != nil {
		return ocspAnswer{}, err
	}
	if data.hash == 0 {
		return ocspAnswer{}, errors.New("OCSP response CertID uses an unsupported hash algorithm")
	}
	nameHash, keyHash, err := issuerHashes(data.hash, issuer)
	if err != nil || !bytes.Equal(nameHash, data.nameHash) || !bytes.Equal(keyHash, data.keyHash) {
		return ocspAnswer{}, errors.New("OCSP response is about a certificate of another CA")
	}
	if data.status != resp.Status {
		return ocspAnswer{}, errors.New("malformed OCSP response: certificate status does not decode")
	}
	if want.nonce != nil && (!data.hasNonce || !bytes.Equal(data.nonce, want.nonce)) {
		return ocspAnswer{}, errors.New("OCSP response does not echo the request nonce")
	}
	if resp.ThisUpdate.After(want.now.Add(want.skew)) {
		return ocspAnswer{}, fmt.Errorf("OCSP response thisUpdate %s is in the future; check the clocks", resp.ThisUpdate.UTC().Format(time.RFC3339))
	}
	if resp.NextUpdate.IsZero() {
		if want.now.Sub(resp.ThisUpdate) > want.maxAge+want.skew {
			return ocspAnswer{}, fmt.Errorf("OCSP response without nextUpdate is older than %s", want.maxAge)
		}
	} else {
		if resp.NextUpdate.Before(resp.ThisUpdate) {
			return ocspAnswer{}, errors.New("malformed OCSP response: nextUpdate precedes thisUpdate")
		}
		if want.now.Add(-want.skew).After(resp.NextUpdate) {
			return ocspAnswer{}, fmt.Errorf("OCSP response is stale: nextUpdate %s has passed", resp.NextUpdate.UTC().Format(time.RFC3339))
		}
	}
	a := ocspAnswer{thisUpdate: resp.ThisUpdate, nextUpdate: resp.NextUpdate}
	switch resp.Status {
	case ocsp.Good:
	case ocsp.Revoked:
		a.revoked = true
		a.hold = resp.RevocationReason == ocsp.CertificateHold
	default:
		return ocspAnswer{}, errors.New("OCSP responder does not know the certificate (status unknown)")
	}
	return a, nil
}

// ocspParseError turns an error of the OCSP parser into a short one that
// does not quote the response.
func ocspParseError(err error) error {
	var re ocsp.ResponseError
	if errors.As(err, &re) {
		return fmt.Errorf("OCSP responder answered %q", re.Status.String())
	}
	var pe ocsp.ParseError
	if errors.As(err, &pe) {
		msg := string(pe)
		if len(msg) > 100 {
			msg = msg[:100]
		}
		return errors.New("malformed OCSP response: " + msg)
	}
	return errors.New("malformed OCSP response: not a DER basic OCSPResponse")
}

// checkOCSPSigner checks who signed resp. Without an embedded certificate
// it must be issuer. An embedded certificate, whose key the parser has
// already checked the signature with, must carry issuer's key or be a
// delegated responder: issued and signed by issuer, with extended key usage
// OCSPSigning (RFC 6960 4.2.2.2), and valid at now.
func checkOCSPSigner(resp *ocsp.Response, issuer *x509.Certificate, now time.Time) error {
	sc := resp.Certificate
	if sc == nil {
		if resp.CheckSignatureFrom(issuer) != nil {
			return errors.New("OCSP response is not signed by the certificate's CA")
		}
		return nil
	}
	if bytes.Equal(sc.RawSubjectPublicKeyInfo, issuer.RawSubjectPublicKeyInfo) {
		return nil
	}
	if !bytes.Equal(sc.RawIssuer, issuer.RawSubject) || sc.CheckSignatureFrom(issuer) != nil {
		return errors.New("OCSP responder certificate is not issued by the certificate's CA")
	}
	if !hasExtKeyUsage(sc, x509.ExtKeyUsageOCSPSigning) {
		return errors.New("OCSP responder certificate lacks extended key usage OCSPSigning")
	}
	if now.Before(sc.NotBefore) || now.After(sc.NotAfter) {
		return errors.New("OCSP responder certificate is expired or not yet valid")
	}
	return nil
}

// ocspResponseData is what verifyOCSPResponse needs from a ResponseData
// beyond what the OCSP parser exposes.
type ocspResponseData struct {
	// hash, nameHash and keyHash are the CertID of the first answer about
	// the serial number; hash is zero if its algorithm is not supported.
	hash              crypto.Hash
	nameHash, keyHash []byte
	// status is that answer's certStatus as ocsp.Good, ocsp.Revoked or
	// ocsp.Unknown.
	status int
	// nonce is the extnValue of the nonce response extension.
	nonce    []byte
	hasNonce bool
}

var (
	tagVersion       = cbasn1.Tag(0).ContextSpecific().Constructed()
	tagResponderName = cbasn1.Tag(1).ContextSpecific().Constructed()
	tagResponderKey  = cbasn1.Tag(2).ContextSpecific().Constructed()
	tagExtensions    = cbasn1.Tag(1).ContextSpecific().Constructed()
	tagStatusGood    = cbasn1.Tag(0).ContextSpecific()
	tagStatusRevoked = cbasn1.Tag(1).ContextSpecific().Constructed()
	tagStatusUnknown = cbasn1.Tag(2).ContextSpecific()
)

var errResponseData = errors.New("malformed OCSP response: ResponseData does not decode")

// parseOCSPResponseData decodes the DER ResponseData of RFC 6960 4.2.1 for
// the CertID and status of the first answer about serial, which is the
// one the OCSP parser reports, and for the response extensions, which it
// ignores: the nonce, and any critical extension, which is refused.
func parseOCSPResponseData(tbs []byte, serial *big.Int) (ocspResponseData, error) {
	var d ocspResponseData
	in := cryptobyte.String(tbs)
	var rd, skipped cryptobyte.String
	var tag cbasn1.Tag
	if !in.ReadASN1(&rd, cbasn1.SEQUENCE) || !in.Empty() ||
		!rd.SkipOptionalASN1(tagVersion) ||
		!rd.ReadAnyASN1(&skipped, &tag) || (tag != tagResponderName && tag != tagResponderKey) ||
		!rd.SkipASN1(cbasn1.GeneralizedTime) {
		return d, errResponseData
	}
	var responses cryptobyte.String
	if !rd.ReadASN1(&responses, cbasn1.SEQUENCE) {
		return d, errResponseData
	}
	found := false
	n := new(big.Int)
	for !responses.Empty() {
		var single, certID, alg cryptobyte.String
		var oid asn1.ObjectIdentifier
		var nameHash, keyHash []byte
		if !responses.ReadASN1(&single, cbasn1.SEQUENCE) ||
			!single.ReadASN1(&certID, cbasn1.SEQUENCE) ||
			!certID.ReadASN1(&alg, cbasn1.SEQUENCE) || !alg.ReadASN1ObjectIdentifier(&oid) ||
			!certID.ReadASN1Bytes(&nameHash, cbasn1.OCTET_STRING) ||
			!certID.ReadASN1Bytes(&keyHash, cbasn1.OCTET_STRING) ||
			!certID.ReadASN1Integer(n) || !certID.Empty() {
			return d, errResponseData
		}
		if found || n.Cmp(serial) != 0 {
			continue
		}
		var status cryptobyte.String
		var statusTag cbasn1.Tag
		if !single.ReadAnyASN1(&status, &statusTag) {
			return d, errResponseData
		}
		switch statusTag {
		case tagStatusGood:
			d.status = ocsp.Good
		case tagStatusRevoked:
			d.status = ocsp.Revoked
		case tagStatusUnknown:
			d.status = ocsp.Unknown
		default:
			return d, errResponseData
		}
		for _, h := range ocspCertIDHashes {
			if h.oid.Equal(oid) {
				d.hash = h.hash
			}
		}
		d.nameHash, d.keyHash = nameHash, keyHash
		found = true
	}
	if !found {
		return d, errors.New("OCSP response has no answer about the certificate's serial number")
	}
	if rd.Empty() {
		return d, nil
	}
	var wrapped, exts cryptobyte.String
	if !rd.ReadASN1(&wrapped, tagExtensions) || !rd.Empty() ||
		!wrapped.ReadASN1(&exts, cbasn1.SEQUENCE) || !wrapped.Empty() {
		return d, errResponseData
	}
	for !exts.Empty() {
		var ext cryptobyte.String
		var id asn1.ObjectIdentifier
		var value []byte
		critical := false
		if !exts.ReadASN1(&ext, cbasn1.SEQUENCE) || !ext.ReadASN1ObjectIdentifier(&id) ||
			(ext.PeekASN1Tag(cbasn1.BOOLEAN) && !ext.ReadASN1Boolean(&critical)) ||
			!ext.ReadASN1Bytes(&value, cbasn1.OCTET_STRING) || !ext.Empty() {
			return d, errResponseData
		}
		switch {
		case id.Equal(oidOCSPNonce):
			if d.hasNonce {
				return d, errors.New("malformed OCSP response: two nonce extensions")
			}
			d.nonce, d.hasNonce = value, true
		case critical:
			return d, errors.New("OCSP response has an unsupported critical extension")
		}
	}
	return d, nil
}
