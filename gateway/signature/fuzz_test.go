package signature

import (
	"fmt"
	"mime"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzParse(f *testing.F) {
	for _, v := range vectors() {
		f.Add(v.value)
	}
	f.Add(typical())
	f.Add(`keyId="k",algorithm="rsa-sha256",headers="date",signature="AAAA"`)
	f.Add(`keyId="k",algorithm="ecdsa-sha256",headers="date digest",signature="MEUCIQDMAAAAAAAAAA=="`)
	f.Add(`keyId="SN=1,CA=O=A\, B",Algorithm="RSA-SHA256", headers="(request-target) date",	signature="AAAA"`)
	f.Fuzz(func(t *testing.T, value string) {
		// parse with a one-byte minimum reaches far more of the parser
		// than Parse, whose signatures must be 256 bytes or more.
		p, err := parse(value, 1, false)
		strict, strictErr := Parse(value)
		if strictErr == nil && (err != nil || !reflect.DeepEqual(p, strict)) {
			t.Fatalf("Parse accepts what parse(1) rejects: %v / %v", err, strictErr)
		}
		// A bank seal's parser accepts all a TPP's does, and ecdsa-sha256
		// only besides.
		seal, sealErr := ParseSeal(value)
		if strictErr == nil && (sealErr != nil || !reflect.DeepEqual(seal, strict)) {
			t.Fatalf("ParseSeal refuses what Parse accepts: %v", sealErr)
		}
		if sealErr == nil && strictErr != nil && seal.Algorithm != AlgorithmECDSASHA256 {
			t.Fatalf("ParseSeal accepts an rsa-sha256 value Parse refuses (%v): %+v", strictErr, seal)
		}
		if err != nil {
			if len(err.Error()) > 200 {
				t.Fatalf("error text of %d characters: %q", len(err.Error()), err)
			}
			return
		}
		if p.Algorithm != AlgorithmRSASHA256 || p.KeyID == "" || len(p.Headers) == 0 || len(p.Headers) > maxHeaders ||
			len(p.Signature) == 0 || len(p.Signature) > maxSignatureLen {
			t.Fatalf("accepted an incomplete or oversized value: %+v", p)
		}
		for i, h := range p.Headers {
			if err := checkHeaderName(h); err != nil {
				t.Fatalf("accepted header name %q: %v", h, err)
			}
			for _, prev := range p.Headers[:i] {
				if prev == h {
					t.Fatalf("accepted %q twice", h)
				}
			}
		}
		if err := checkText(p.KeyID); err != nil {
			t.Fatalf("accepted keyId %q: %v", p.KeyID, err)
		}
		// Writing the parameters back in canonical form parses to the same.
		canonical := fmt.Sprintf(`keyId="%s",algorithm="%s",headers="%s",signature="%s"`,
			p.KeyID, p.Algorithm, strings.Join(p.Headers, " "), strictBase64.EncodeToString(p.Signature))
		again, err := parse(canonical, 1, false)
		if err != nil || !reflect.DeepEqual(again, p) {
			t.Fatalf("canonical form %q parses to %+v, %v; want %+v", canonical, again, err, p)
		}
	})
}

func FuzzDecodeRFC2047(f *testing.F) {
	f.Add(bg2Encoded)
	f.Add("=?utf-8?Q?=C3=98yvind_=C3=86r=C3=B8?=")
	f.Add("=?ISO-8859-1?q?=D8yvind?= \t=?utf-8?B?w5h5dmluZA==?=")
	f.Add("=?utf-8?B?ww==?= =?utf-8?B?mA==?=")
	f.Add("=?utf-8?b?/w==?=")
	f.Fuzz(func(t *testing.T, v string) {
		got, err := DecodeRFC2047(v)
		if err != nil {
			return
		}
		if err := checkText(got); err != nil {
			t.Fatalf("decoded to text with %v: %q", err, got)
		}
		// Go's header decoder agrees on everything DecodeRFC2047 accepts.
		want, err := new(mime.WordDecoder).DecodeHeader(v)
		if err != nil || want != got {
			t.Fatalf("DecodeRFC2047 = %q, mime.WordDecoder.DecodeHeader = %q, %v", got, want, err)
		}
	})
}

func FuzzParseKeyID(f *testing.F) {
	f.Add("SN=1A2B3C4D5E6F,CA=" + issuerRFC2253)
	f.Add("sn=00ff, ca=CN=Test QTSP Root CA,O=Test QTSP Ø AS,C=NO")
	f.Add("SN=1,CA=2.5.4.97=#130f4e54524e4f2d313233343536373839,CN=x")
	f.Add("SN=1,CA=CN%3DTest%20CA%2CO%3DBank%20%C3%98")
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseKeyID(s)
		if err != nil {
			return
		}
		if k.Serial == nil || k.Serial.Sign() < 0 || k.Serial.BitLen() > 8*maxSerialHexDigits/2 {
			t.Fatalf("serial %v out of range", k.Serial)
		}
		checkDN(t, k.Issuer)
		formatted := formatDN(k.Issuer)
		if len(formatted) > maxDNLen {
			return // escaping made it longer than ParseDN accepts
		}
		again, err := ParseKeyID(fmt.Sprintf("SN=%X,CA=%s", k.Serial, formatted))
		if err != nil || again.Serial.Cmp(k.Serial) != 0 || !again.Issuer.Equal(k.Issuer) {
			t.Fatalf("round trip via %.200q gives %v", formatted, err)
		}
	})
}

func FuzzParseDN(f *testing.F) {
	f.Add(issuerRFC2253)
	f.Add(`CN=Test QTSP Root CA,OU=Trust Services\, Norway,O=Test QTSP Ø AS,L=Oslo,ST=Oslo,C=NO,1.2.840.113549.1.9.1=#0c0f636140717473702e6578616d706c65,2.5.4.97=#130f4e54524e4f2d313233343536373839`)
	f.Add(`O="Bank, Inc.";OU=a+CN=b,S=Oslo,OID.2.5.4.97=x,O=\C3\98`)
	f.Add("CN%3DTest%20CA%2CO%3DBank%20%C3%98%2CC%3DNO")
	f.Add("O=Bank, Inc.,C=NO,CN=#1e0400d80041")
	f.Fuzz(func(t *testing.T, s string) {
		dn, err := ParseDN(s)
		if err != nil {
			return
		}
		checkDN(t, dn)
		formatted := formatDN(dn)
		if len(formatted) > maxDNLen {
			return // escaping made it longer than ParseDN accepts
		}
		again, err := ParseDN(formatted)
		if err != nil || !again.Equal(dn) {
			t.Fatalf("round trip via %.200q gives %v", formatted, err)
		}
	})
}

// checkDN checks the invariants of a parsed DN.
func checkDN(t *testing.T, dn DN) {
	t.Helper()
	if len(dn) == 0 || len(dn) > maxDNAttributes {
		t.Fatalf("DN with %d attributes", len(dn))
	}
	for _, a := range dn {
		if len(a.Type) < 2 {
			t.Fatalf("attribute type %v", a.Type)
		}
		if err := checkText(a.Value); err != nil {
			t.Fatalf("attribute value %q: %v", a.Value, err)
		}
		if a.Value != strings.Trim(a.Value, " ") {
			t.Fatalf("attribute value %q not trimmed", a.Value)
		}
	}
	if !dn.Equal(dn) {
		t.Fatalf("DN %+v is not Equal to itself", dn)
	}
}

func FuzzValuesEqual(f *testing.F) {
	f.Add("Test CA", "test  ca ")
	f.Add("ØYVIND", "øyvind")
	f.Add("K", "\u212a")
	f.Add("a\xff", "a\xfe")
	f.Fuzz(func(t *testing.T, a, b string) {
		got := valuesEqual(a, b)
		if got != valuesEqual(b, a) {
			t.Fatalf("valuesEqual(%q, %q) is not symmetric", a, b)
		}
		if utf8.ValidString(a) && !valuesEqual(a, a) {
			t.Fatalf("valuesEqual(%q, itself) = false", a)
		}
		if utf8.ValidString(a) && utf8.ValidString(b) && !strings.Contains(a, " ") && !strings.Contains(b, " ") {
			if want := strings.EqualFold(a, b); got != want {
				t.Fatalf("valuesEqual(%q, %q) = %v, strings.EqualFold = %v", a, b, got, want)
			}
		}
	})
}
