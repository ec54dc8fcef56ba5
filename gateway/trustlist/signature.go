package trustlist

import (
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/beevik/etree"
	dsig "github.com/russellhaering/goxmldsig"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// Verify checks a trusted list's enveloped XML signature (XAdES
// baseline, as the EU lists are signed) with goxmldsig: the signing
// certificate in its KeyInfo must be one of signers and valid when the
// list says it was issued. It returns the signed content only (the
// canonical bytes the signature covers, its Signature element removed):
// Parse that, never the bytes received.
//
// Two adjustments are made to the received tree before goxmldsig checks
// it, neither of which changes what is signed:
//
//   - The Signature element is moved to be the root's first child.
//     goxmldsig looks for it walking at most 1000 elements, and a list
//     holds thousands before its Signature, its last child
//     (russellhaering/goxmldsig issue 202); the enveloped-signature
//     transform removes it wherever it is.
//   - An ECDSA SignatureValue, which XML Signature writes as r and s side
//     by side, is re-encoded as the ASN.1 SEQUENCE Go's x509 verifies
//     (goxmldsig issue 163). SignatureValue is covered by no digest.
//
// The XAdES SignedProperties reference is not checked by goxmldsig; it
// holds the signing time and certificate digest, which obgw does not use.
// Both adjustments are pinned by tests on real lists (signature_test.go).
func Verify(raw []byte, signers []*x509.Certificate) ([]byte, *x509.Certificate, error) {
	doc := etree.NewDocument()
	if err := doc.ReadFromBytes(raw); err != nil {
		return nil, nil, fmt.Errorf("trustlist: not XML: %w", err)
	}
	root := doc.Root()
	if root == nil {
		return nil, nil, errors.New("trustlist: not XML: no root element")
	}
	var sig *etree.Element
	for _, c := range root.ChildElements() {
		if c.Tag == "Signature" && c.NamespaceURI() == dsig.Namespace {
			if sig != nil {
				return nil, nil, errors.New("trustlist: more than one Signature")
			}
			sig = c
		}
	}
	if sig == nil {
		return nil, nil, errors.New("trustlist: the list is not signed (no Signature element under its root)")
	}
	root.RemoveChild(sig)
	root.InsertChildAt(0, sig)
	if err := derECDSA(sig); err != nil {
		return nil, nil, err
	}
	// The signer must have been valid when the list was issued; the
	// issue time read here is checked against the signed one below.
	issued, err := issueTime(root)
	if err != nil {
		return nil, nil, err
	}
	ctx := dsig.NewDefaultValidationContext(&dsig.MemoryX509CertificateStore{Roots: signers})
	ctx.Clock = dsig.NewFakeClockAt(issued)
	signed, err := ctx.Validate(root)
	if err != nil {
		return nil, nil, fmt.Errorf("trustlist: signature: %w", err)
	}
	if got, err := issueTime(signed); err != nil || !got.Equal(issued) {
		return nil, nil, errors.New("trustlist: signature: the signed ListIssueDateTime is not the one read")
	}
	out := etree.NewDocument()
	out.SetRoot(signed)
	b, err := out.WriteToBytes()
	if err != nil {
		return nil, nil, err
	}
	return b, signer(sig, signers), nil
}

// issueTime reads ListIssueDateTime.
func issueTime(root *etree.Element) (time.Time, error) {
	var found *etree.Element
	for _, si := range root.ChildElements() {
		if si.Tag == "SchemeInformation" && si.NamespaceURI() == nsTSL {
			for _, c := range si.ChildElements() {
				if c.Tag == "ListIssueDateTime" && c.NamespaceURI() == nsTSL {
					found = c
				}
			}
		}
	}
	if found == nil {
		return time.Time{}, errors.New("trustlist: no SchemeInformation/ListIssueDateTime")
	}
	return parseTime("ListIssueDateTime", found.Text())
}

// signer is the certificate of signers the Signature's KeyInfo holds.
func signer(sig *etree.Element, signers []*x509.Certificate) *x509.Certificate {
	for _, x := range sig.FindElements(".//X509Certificate") {
		der, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(x.Text()), ""))
		if err != nil {
			continue
		}
		for _, c := range signers {
			if bytes.Equal(c.Raw, der) {
				return c
			}
		}
	}
	return nil
}

// derECDSA re-encodes an ECDSA SignatureValue (r || s) as ASN.1.
func derECDSA(sig *etree.Element) error {
	var method, value *etree.Element
	for _, c := range sig.ChildElements() {
		switch c.Tag {
		case "SignedInfo":
			for _, m := range c.ChildElements() {
				if m.Tag == "SignatureMethod" {
					method = m
				}
			}
		case "SignatureValue":
			value = c
		}
	}
	if method == nil || value == nil || !strings.Contains(method.SelectAttrValue("Algorithm", ""), "ecdsa-") {
		return nil
	}
	raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(value.Text()), ""))
	if err != nil || len(raw) == 0 || len(raw)%2 != 0 {
		return nil // not r || s: goxmldsig refuses it
	}
	n := len(raw) / 2
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1BigInt(new(big.Int).SetBytes(raw[:n]))
		b.AddASN1BigInt(new(big.Int).SetBytes(raw[n:]))
	})
	der, err := b.Bytes()
	if err != nil {
		return fmt.Errorf("trustlist: ECDSA SignatureValue: %w", err)
	}
	value.SetText(base64.StdEncoding.EncodeToString(der))
	return nil
}
