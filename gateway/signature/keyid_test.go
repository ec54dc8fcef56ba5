package signature

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net/url"
	"strings"
	"testing"
)

// issuerRFC2253 is testIssuer in RFC 2253 order (last RDN first) with
// short names, as most TPP clients write it.
const issuerRFC2253 = `2.5.4.97=NTRNO-123456789,E=ca@qtsp.example,CN=Test QTSP Root CA,OU=Trust Services\, Norway,O=Test QTSP Ø AS,L=Oslo,ST=Oslo,C=NO`

func TestKeyIDMatches(t *testing.T) {
	leaf, _ := testCertificate(t, &appendixCPrivate(t).PublicKey)
	tests := []struct {
		name  string
		keyID string
		want  bool
	}{
		{"RFC 2253 order", "SN=1A2B3C4D5E6F,CA=" + issuerRFC2253, true},
		{"Go's pkix.Name.String, with #hex values", "SN=1A2B3C4D5E6F,CA=" + leaf.Issuer.String(), true},
		{"serial lower case with leading zeros", "SN=00001a2b3c4d5e6f,CA=" + issuerRFC2253, true},
		{"sn= and ca= in lower case, space after comma", "sn=1A2B3C4D5E6F, ca=" + issuerRFC2253, true},
		{"sandbox client order CN, O, OU, L, S, C",
			`SN=1A2B3C4D5E6F,CA=CN=Test QTSP Root CA,O=Test QTSP Ø AS,OU=Trust Services\, Norway,L=Oslo,S=Oslo,C=NO,organizationIdentifier=NTRNO-123456789,emailAddress=ca@qtsp.example`, true},
		{"OID.2.5.4.97 and spaces around separators",
			`SN=1A2B3C4D5E6F,CA=C = NO , ST=Oslo, L=Oslo, O=Test QTSP Ø AS, OU=Trust Services\2C Norway, CN=Test QTSP Root CA, EMAIL=ca@qtsp.example, OID.2.5.4.97=NTRNO-123456789`, true},
		{"2.5.4.97 as #hex UTF8String",
			`SN=1A2B3C4D5E6F,CA=2.5.4.97=#0c0f4e54524e4f2d313233343536373839,E=ca@qtsp.example,CN=Test QTSP Root CA,OU=Trust Services\, Norway,O=Test QTSP Ø AS,L=Oslo,ST=Oslo,C=NO`, true},
		{"values in another case, unescaped comma in a value",
			`SN=1A2B3C4D5E6F,CA=organizationidentifier=ntrno-123456789,e=CA@QTSP.EXAMPLE,cn=TEST QTSP ROOT CA,ou=TRUST SERVICES, NORWAY,o=test qtsp ø as,l=OSLO,st=OSLO,c=no`, true},
		{"CA percent-encoded", "SN=1A2B3C4D5E6F,CA=" + url.PathEscape(issuerRFC2253), true},
		{"CA percent-encoded by QueryEscape", "SN=1A2B3C4D5E6F,CA=" + strings.ReplaceAll(url.QueryEscape(issuerRFC2253), "+", "%20"), true},
		{"quoted value", `SN=1A2B3C4D5E6F,CA=2.5.4.97=NTRNO-123456789,E=ca@qtsp.example,CN=Test QTSP Root CA,OU="Trust Services, Norway",O=Test QTSP Ø AS,L=Oslo,ST=Oslo,C=NO`, true},
		{"multi-valued RDN", `SN=1A2B3C4D5E6F,CA=2.5.4.97=NTRNO-123456789+E=ca@qtsp.example,CN=Test QTSP Root CA,OU=Trust Services\, Norway,O=Test QTSP Ø AS+L=Oslo,ST=Oslo,C=NO`, true},

		{"serial differs by one", "SN=1A2B3C4D5E70,CA=" + issuerRFC2253, false},
		{"country differs", "SN=1A2B3C4D5E6F,CA=" + strings.Replace(issuerRFC2253, "C=NO", "C=SE", 1), false},
		{"organizationIdentifier differs", "SN=1A2B3C4D5E6F,CA=" + strings.Replace(issuerRFC2253, "NTRNO-123456789", "NTRNO-123456780", 1), false},
		{"one attribute missing", "SN=1A2B3C4D5E6F,CA=" + strings.Replace(issuerRFC2253, ",L=Oslo", "", 1), false},
		{"one attribute extra", "SN=1A2B3C4D5E6F,CA=" + issuerRFC2253 + ",DC=example", false},
		{"an attribute repeated instead of another", "SN=1A2B3C4D5E6F,CA=" + strings.Replace(issuerRFC2253, "L=Oslo", "ST=Oslo", 1), false},
		{"OU written as O", "SN=1A2B3C4D5E6F,CA=" + strings.Replace(issuerRFC2253, "OU=Trust", "O=Trust", 1), false},
		{"organizationIdentifier missing", "SN=1A2B3C4D5E6F,CA=" + strings.Replace(issuerRFC2253, "2.5.4.97=NTRNO-123456789,", "", 1), false},
		{"the subject instead of the issuer", "SN=1A2B3C4D5E6F,CA=" + leaf.Subject.String(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := ParseKeyID(tt.keyID)
			if err != nil {
				t.Fatalf("ParseKeyID(%q): %v", tt.keyID, err)
			}
			if got := k.Matches(leaf); got != tt.want {
				t.Fatalf("Matches = %v, want %v (issuer %+v)", got, tt.want, k.Issuer)
			}
			// A certificate built by hand has no Issuer.Names; Matches
			// then parses RawIssuer and must agree.
			bare := &x509.Certificate{SerialNumber: leaf.SerialNumber, RawIssuer: leaf.RawIssuer}
			if got := k.Matches(bare); got != tt.want {
				t.Fatalf("Matches(RawIssuer only) = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestKeyIDMatchesNil(t *testing.T) {
	leaf, _ := testCertificate(t, &appendixCPrivate(t).PublicKey)
	k, err := ParseKeyID("SN=1A2B3C4D5E6F,CA=" + issuerRFC2253)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		k    KeyID
		cert *x509.Certificate
	}{
		{"nil certificate", k, nil},
		{"zero KeyID", KeyID{}, leaf},
		{"no issuer at all", k, &x509.Certificate{SerialNumber: leaf.SerialNumber}},
		{"garbage RawIssuer", k, &x509.Certificate{SerialNumber: leaf.SerialNumber, RawIssuer: []byte{0x30, 0x03, 1}}},
		{"issuer values not strings", k, &x509.Certificate{SerialNumber: leaf.SerialNumber, Issuer: pkix.Name{Names: []pkix.AttributeTypeAndValue{{Type: []int{2, 5, 4, 3}, Value: 42}}}}},
	}
	for _, tt := range tests {
		if tt.k.Matches(tt.cert) {
			t.Errorf("%s: Matches = true, want false", tt.name)
		}
	}
}

func TestParseKeyID(t *testing.T) {
	tests := []struct {
		in     string
		serial *big.Int
	}{
		{"SN=0,CA=CN=x", big.NewInt(0)},
		{"SN=000,CA=CN=x", big.NewInt(0)},
		{"SN=ff,CA=CN=x", big.NewInt(255)},
		{"SN=" + strings.Repeat("0", 60) + strings.Repeat("F", 40) + ",CA=CN=x", new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 160), big.NewInt(1))},
	}
	for _, tt := range tests {
		k, err := ParseKeyID(tt.in)
		if err != nil {
			t.Fatalf("ParseKeyID(%q): %v", tt.in, err)
		}
		if k.Serial.Cmp(tt.serial) != 0 {
			t.Errorf("ParseKeyID(%q) serial %v, want %v", tt.in, k.Serial, tt.serial)
		}
	}
}

func TestParseKeyIDRejects(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"empty", "", "must have the form"},
		{"no SN", "CA=CN=x", "must have the form"},
		{"CA first", "CA=CN=x,SN=1", "must have the form"},
		{"no CA", "SN=1A", `no ",CA=`},
		{"SN then something else", "SN=1A,CN=x", `no ",CA=`},
		{"empty serial", "SN=,CA=CN=x", "empty serial"},
		{"decimal-looking with sign", "SN=-1A,CA=CN=x", "non-hex character at byte 0"},
		{"0x prefix", "SN=0x1A,CA=CN=x", "non-hex character at byte 1"},
		{"colon separated", "SN=1a:2b,CA=CN=x", "non-hex character at byte 2"},
		{"space in serial", "SN=1A 2B,CA=CN=x", "non-hex character"},
		{"serial of 21 octets", "SN=1" + strings.Repeat("0", 40) + ",CA=CN=x", "41 hex digits"},
		{"empty DN", "SN=1A,CA=", "issuer DN is empty"},
		{"bad DN", "SN=1A,CA=Foo=bar", `unknown attribute type "Foo"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := ParseKeyID(tt.in)
			if err == nil {
				t.Fatalf("ParseKeyID(%q) = %+v, want an error containing %q", tt.in, k, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("ParseKeyID(%q) error %q, want it to contain %q", tt.in, err, tt.wantErr)
			}
		})
	}
}
