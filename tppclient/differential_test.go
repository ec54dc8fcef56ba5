package tppclient

// The TPP's client shares no code with the bank's verifier (package doc).
// These tests alone import the gateway's parsers, to hold the two
// implementations to the same answers: the client's response verifier
// against gateway/signature and gateway/digest, and the seal's keyId
// (signature.FormatKeyID) against the client's DefaultKeyID.

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/obgw/obgw/gateway/digest"
	"github.com/obgw/obgw/gateway/signature"
	"github.com/obgw/obgw/pemfile"
	"github.com/obgw/obgw/testpki"
)

// attributeChoices are the attribute types the generated issuers use, by
// OID, with the names a keyId may give them.
var attributeChoices = []struct {
	oid   asn1.ObjectIdentifier
	names []string
}{
	{asn1.ObjectIdentifier{2, 5, 4, 3}, []string{"CN", "cn"}},
	{asn1.ObjectIdentifier{2, 5, 4, 6}, []string{"C", "c"}},
	{asn1.ObjectIdentifier{2, 5, 4, 7}, []string{"L"}},
	{asn1.ObjectIdentifier{2, 5, 4, 8}, []string{"ST", "S"}},
	{asn1.ObjectIdentifier{2, 5, 4, 10}, []string{"O", "o"}},
	{asn1.ObjectIdentifier{2, 5, 4, 11}, []string{"OU"}},
	{asn1.ObjectIdentifier{2, 5, 4, 5}, []string{"SERIALNUMBER", "serialNumber"}},
	{asn1.ObjectIdentifier{2, 5, 4, 97}, []string{"organizationIdentifier", "2.5.4.97", "OID.2.5.4.97"}},
	{asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 25}, []string{"DC"}},
	{asn1.ObjectIdentifier{2, 5, 4, 12}, []string{"title", "2.5.4.12"}},
}

// valueRunes are what generated attribute values are made of: letters,
// digits, spaces, every character RFC 2253 escapes, and non-ASCII ones.
var valueRunes = []rune("aZk09 ,+\"\\<>;#=æØåßΣ-.'")

// randomIssuer is an RDNSequence of 1 to 5 RDNs, now and then one with
// two attributes.
func randomIssuer(rng *mrand.Rand) pkix.RDNSequence {
	var seq pkix.RDNSequence
	for range 1 + rng.IntN(5) {
		var rdn pkix.RelativeDistinguishedNameSET
		for range 1 + rng.IntN(2)*rng.IntN(2) {
			a := attributeChoices[rng.IntN(len(attributeChoices))]
			var v []rune
			for range 1 + rng.IntN(12) {
				v = append(v, valueRunes[rng.IntN(len(valueRunes))])
			}
			rdn = append(rdn, pkix.AttributeTypeAndValue{Type: a.oid, Value: string(v)})
		}
		seq = append(seq, rdn)
	}
	return seq
}

// certificateIssuedBy is a certificate whose issuer is issuer and whose
// serial is serial (signed by a throwaway key: only the names matter).
func certificateIssuedBy(t testing.TB, issuer pkix.RDNSequence, serial *big.Int) *x509.Certificate {
	t.Helper()
	raw, err := asn1.Marshal(issuer)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		RawSubject:   raw,
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// escapeValue writes v with RFC 4514 escapes: the specials with a
// backslash, or, with hexEscapes, as '\' and two hex digits.
func escapeValue(v string, hexEscapes bool) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		special := strings.IndexByte(",+\"\\<>;=", c) >= 0 || c == '#' && i == 0 || c == ' ' && (i == 0 || i == len(v)-1)
		switch {
		case special && hexEscapes:
			fmt.Fprintf(&b, `\%02x`, c)
		case special:
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// spellings are keyIds of cert written the ways banks' tooling writes
// them: RFC 2253 order and certificate order, names and OIDs, spaces
// after separators, hex escapes, quoted values, '#' and hex DER, case
// changes in SN, CA, the serial and the values.
func spellings(rng *mrand.Rand, cert *x509.Certificate, issuer pkix.RDNSequence) []string {
	var out []string
	for style := range 8 {
		rdns := slices.Clone(issuer)
		if style%2 == 0 {
			slices.Reverse(rdns)
		}
		var parts []string
		for _, rdn := range rdns {
			var atvs []string
			for _, atv := range rdn {
				var name string
				for _, a := range attributeChoices {
					if a.oid.Equal(atv.Type) {
						name = a.names[rng.IntN(len(a.names))]
					}
				}
				v := atv.Value.(string)
				if style == 5 {
					v = strings.ToUpper(v)
				}
				var value string
				switch {
				case style == 3 && !strings.ContainsAny(v, `"\`):
					value = `"` + v + `"`
				case style == 4:
					der, _ := asn1.MarshalWithParams(v, "utf8")
					value = "#" + hex.EncodeToString(der)
				default:
					value = escapeValue(v, style == 1)
				}
				eq := "="
				if style == 6 {
					eq = " = "
				}
				atvs = append(atvs, name+eq+value)
			}
			parts = append(parts, strings.Join(atvs, "+"))
		}
		sep := ","
		switch style {
		case 2:
			sep = ", "
		case 7:
			sep = ";"
		}
		serial := strings.ToUpper(cert.SerialNumber.Text(16))
		prefix, ca := "SN=", ",CA="
		if style%3 == 1 {
			serial = "00" + strings.ToLower(serial)
			prefix, ca = "sn=", ", ca="
		}
		out = append(out, prefix+serial+ca+strings.Join(parts, sep))
	}
	return out
}

// TestKeyIDsAgree: for random issuers, the seal's keyId
// (signature.FormatKeyID) is byte for byte the client's DefaultKeyID;
// every spelling of it is read by both parsers, and both say it names the
// certificate and not a neighbour (one value changed, or the serial).
func TestKeyIDsAgree(t *testing.T) {
	rng := mrand.New(mrand.NewPCG(1, 2))
	for n := range 200 {
		issuer := randomIssuer(rng)
		serial := big.NewInt(rng.Int64N(1 << 40))
		cert := certificateIssuedBy(t, issuer, serial)
		other := certificateIssuedBy(t, issuer, new(big.Int).Add(serial, big.NewInt(1)))
		changed := slices.Clone(issuer)
		changed[0] = slices.Clone(changed[0])
		changed[0][0].Value = changed[0][0].Value.(string) + "x"
		neighbour := certificateIssuedBy(t, changed, serial)

		gw, err := signature.FormatKeyID(cert)
		if err != nil {
			t.Fatal(err)
		}
		client, err := DefaultKeyID(cert)
		if err != nil {
			t.Fatal(err)
		}
		if gw != client {
			t.Fatalf("issuer %d: the seal's keyId %q, the client's %q", n, gw, client)
		}
		for _, s := range append(spellings(rng, cert, issuer), gw) {
			k, err := parseKeyID(s)
			if err != nil {
				t.Fatalf("client refuses %q: %v", s, err)
			}
			g, err := signature.ParseKeyID(s)
			if err != nil {
				t.Fatalf("gateway refuses %q: %v", s, err)
			}
			for _, c := range []struct {
				cert *x509.Certificate
				want bool
			}{{cert, true}, {other, false}, {neighbour, false}} {
				if got, gwGot := k.names(c.cert), g.Matches(c.cert); got != c.want || gwGot != c.want {
					t.Fatalf("%q names the certificate %v: client %v, gateway %v, want %v", s, c.cert.Issuer, got, gwGot, c.want)
				}
			}
		}
	}
}

// agreementCertificates are the certificates the keyId fuzz target asks
// both parsers about: the test PKI's seals and a certificate with
// escaped, non-ASCII and multi-valued names.
func agreementCertificates(t testing.TB) []*x509.Certificate {
	var certs []*x509.Certificate
	for _, f := range []string{testpki.FileBankSeal, testpki.FileBankSealEC, testpki.SealFile("aisp")} {
		pem, err := os.ReadFile(filepath.Join("..", "testdata", "pki", f))
		if err != nil {
			t.Fatal(err)
		}
		c, err := pemfile.Certificates(pem)
		if err != nil {
			t.Fatal(err)
		}
		certs = append(certs, c[0])
	}
	return append(certs, certificateIssuedBy(t, pkix.RDNSequence{
		{{Type: asn1.ObjectIdentifier{2, 5, 4, 6}, Value: "NO"}},
		{{Type: asn1.ObjectIdentifier{2, 5, 4, 10}, Value: "Bank, Inc. \"Ø\""}, {Type: asn1.ObjectIdentifier{2, 5, 4, 97}, Value: "NTRNO-123456789"}},
		{{Type: asn1.ObjectIdentifier{2, 5, 4, 3}, Value: " #Seal  CA+1 "}},
	}, big.NewInt(0x1234)))
}

// FuzzKeyIDAgreement: whenever both parsers read a keyId, they agree on
// which certificates it names. The gateway reads more than the client
// (percent-encoded DNs, unescaped commas in values, more attribute
// names) and refuses some text the client reads (bidi controls,
// characters outside the BMP), so only the keyIds both read are compared.
func FuzzKeyIDAgreement(f *testing.F) {
	certs := agreementCertificates(f)
	rng := mrand.New(mrand.NewPCG(3, 4))
	for _, c := range certs {
		id, err := DefaultKeyID(c)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(id)
	}
	issuer := randomIssuer(rng)
	for _, s := range spellings(rng, certificateIssuedBy(f, issuer, big.NewInt(7)), issuer) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := parseKeyID(s)
		if err != nil {
			return
		}
		g, err := signature.ParseKeyID(s)
		if err != nil {
			return
		}
		for _, c := range certs {
			if got, gwGot := k.names(c), g.Matches(c); got != gwGot {
				t.Fatalf("%q names %v: client %v, gateway %v", s, c.Issuer, got, gwGot)
			}
		}
	})
}

// FuzzSignatureHeaderAgreement: whenever both the client's parser and the
// gateway's ParseSeal read a Signature header, they read the same keyId,
// algorithm, header list and signature.
func FuzzSignatureHeaderAgreement(f *testing.F) {
	sig := bytes.Repeat([]byte{0xab}, 256)
	f.Add(formatSignature("SN=1A,CA=CN=Seal CA\\, Test,O=Bank,C=NO", algorithmRSASHA256, []string{"date", "digest", "x-request-id"}, sig))
	f.Add(formatSignature("SN=1A,CA=CN=Bankø,C=NO", algorithmECDSASHA256, []string{"date", "digest"}, sig[:70]))
	f.Add(`keyId="SN=1,CA=CN=\"x\"",algorithm="rsa-sha256",headers="date digest",signature="` + base64.StdEncoding.EncodeToString(sig) + `"`)
	f.Fuzz(func(t *testing.T, v string) {
		p, err := parseSignature(v)
		if err != nil {
			return
		}
		g, err := signature.ParseSeal(v)
		if err != nil {
			return
		}
		if p.keyID != g.KeyID || p.algorithm != g.Algorithm || !slices.Equal(p.headers, g.Headers) || !bytes.Equal(p.signature, g.Signature) {
			t.Fatalf("%q: client %+v, gateway %+v", v, p, g)
		}
	})
}

// FuzzDigestAgreement: the client's Digest check and the gateway's
// agree, wherever the gateway reads the header, on whether it matches
// the body.
func FuzzDigestAgreement(f *testing.F) {
	body := []byte(`{"transactions":{"booked":[]}}`)
	s256, s512 := sha256.Sum256(body), sha512.Sum512(body)
	f.Add("SHA-256="+base64.StdEncoding.EncodeToString(s256[:]), body)
	f.Add("sha-512="+base64.StdEncoding.EncodeToString(s512[:])+", MD5=abc", body)
	f.Add("SHA-256="+base64.StdEncoding.EncodeToString(s256[:]), []byte("other"))
	f.Fuzz(func(t *testing.T, v string, body []byte) {
		d, err := digest.Parse(v)
		if err != nil {
			return
		}
		gw := d.Verify(body) == nil
		if client := checkDigest(v, body) == nil; client != gw {
			t.Fatalf("Digest %q on %q: client %v, gateway %v", v, body, client, gw)
		}
	})
}

// TestResponseSigningStringAgrees: the client builds the signing string
// of a response as the gateway's AppendSigningString does.
func TestResponseSigningStringAgrees(t *testing.T) {
	h := http.Header{}
	h.Set("Date", "Wed, 25 Nov 2026 12:00:00 GMT")
	h.Set("Digest", "SHA-256=abc=")
	h.Set("X-Request-ID", "99391c7e-ad88-49ec-a2ad-99ddcb1f7721")
	names := []string{"date", "digest", "x-request-id"}
	client, err := responseSigningString(names, h)
	if err != nil {
		t.Fatal(err)
	}
	gw, err := signature.AppendSigningString(nil, names, "", "", h)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(client, gw) {
		t.Fatalf("client %q, gateway %q", client, gw)
	}
	h.Add("Digest", "SHA-256=def=")
	if _, err := responseSigningString(names, h); err == nil {
		t.Fatal("the client signs a header sent twice")
	}
}
