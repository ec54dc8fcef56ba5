package signature

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"reflect"
	"strings"
	"testing"
)

var (
	oidCN = asn1.ObjectIdentifier{2, 5, 4, 3}
	oidC  = asn1.ObjectIdentifier{2, 5, 4, 6}
	oidST = asn1.ObjectIdentifier{2, 5, 4, 8}
	oidO  = asn1.ObjectIdentifier{2, 5, 4, 10}
	oidOU = asn1.ObjectIdentifier{2, 5, 4, 11}
)

func TestParseDN(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want DN
	}{
		{"RFC 4514", "CN=Test CA,O=Bank AS,C=NO", DN{{oidCN, "Test CA"}, {oidO, "Bank AS"}, {oidC, "NO"}}},
		{"long names, any case", "commonName=a,ORGANIZATIONNAME=b,countryName=NO", DN{{oidCN, "a"}, {oidO, "b"}, {oidC, "NO"}}},
		{"S and ST", "S=Oslo,ST=Oslo,stateOrProvinceName=Oslo", DN{{oidST, "Oslo"}, {oidST, "Oslo"}, {oidST, "Oslo"}}},
		{"organizationIdentifier spellings", "organizationIdentifier=a,2.5.4.97=b,OID.2.5.4.97=c,oid.2.5.4.97=d",
			DN{{oidOrganizationIdentifier, "a"}, {oidOrganizationIdentifier, "b"}, {oidOrganizationIdentifier, "c"}, {oidOrganizationIdentifier, "d"}}},
		{"#hex PrintableString and UTF8String", "2.5.4.97=#130141,2.5.4.97=#0c02c398", DN{{oidOrganizationIdentifier, "A"}, {oidOrganizationIdentifier, "Ø"}}},
		{"#hex BMPString", "CN=#1e0400d80041", DN{{oidCN, "ØA"}}},
		{"# not followed by hex is literal", "O=#1 Bank", DN{{oidO, "#1 Bank"}}},
		{"E and emailAddress", "E=a@b,emailAddress=c@d", DN{{oidEmailAddress, "a@b"}, {oidEmailAddress, "c@d"}}},
		{"unknown dotted OID", "1.3.6.1.4.1.99999.1=x", DN{{asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 99999, 1}, "x"}}},
		{"escaped special characters", `O=a\,b\+c\;d\"e\\f\<g\>h\=i\#j`, DN{{oidO, `a,b+c;d"e\f<g>h=i#j`}}},
		{"hex escapes of UTF-8", `O=\C3\98yvind\2c AS`, DN{{oidO, "Øyvind, AS"}}},
		{"escaped leading and trailing spaces are trimmed", `O=\ a \ `, DN{{oidO, "a"}}},
		{"spaces around separators", " CN = a , O = b + OU = c ", DN{{oidCN, "a"}, {oidO, "b"}, {oidOU, "c"}}},
		{"semicolon separator", "CN=a;O=b", DN{{oidCN, "a"}, {oidO, "b"}}},
		{"unescaped comma in a value", "O=Bank, Inc.,C=NO", DN{{oidO, "Bank, Inc."}, {oidC, "NO"}}},
		{"unescaped plus in a value", "O=A+B Bank,C=NO", DN{{oidO, "A+B Bank"}, {oidC, "NO"}}},
		{"equals sign in a value", "CN=a=b", DN{{oidCN, "a=b"}}},
		{"quoted values", `O="Bank, Inc.",OU="say \"hi\""`, DN{{oidO, "Bank, Inc."}, {oidOU, `say "hi"`}}},
		{"percent-encoded", "CN%3DTest%20CA%2CO%3DBank%20%C3%98%2CC%3DNO", DN{{oidCN, "Test CA"}, {oidO, "Bank Ø"}, {oidC, "NO"}}},
		{"percent-encoded escape", "O%3DA%5C%2CB", DN{{oidO, "A,B"}}},
		{"literal percent", "O=100% Bank", DN{{oidO, "100% Bank"}}},
		{"empty value", "CN=,O=b", DN{{oidCN, ""}, {oidO, "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseDN(tt.in)
			if err != nil {
				t.Fatalf("ParseDN(%q): %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseDN(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
			if !got.Equal(tt.want) {
				t.Fatalf("ParseDN(%q) result is not Equal to itself", tt.in)
			}
		})
	}
}

func TestParseDNRejects(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"empty", "", "empty"},
		{"no attribute", "Test CA", "no attribute"},
		{"unknown type", "CN=a,Foo=b", `unknown attribute type "Foo"`},
		{"type without =", "=a", "expected an attribute type at byte 0"},
		{"leading comma", ",CN=a", "expected an attribute type"},
		{"OID with one arc", "1=a", `unknown attribute type "1"`},
		{"OID with first arc 3", "3.1=a", "unknown attribute type"},
		{"OID with leading zero", "2.05.4.3=a", "unknown attribute type"},
		{"OID with empty arc", "2..4=a", "unknown attribute type"},
		{"OID prefix without OID", "OID.=a", "unknown attribute type"},
		{"lone backslash", `CN=a\`, "lone backslash"},
		{"unterminated quote", `CN="a`, "no closing quote"},
		{"text after quote", `CN="a"b`, "text after the closing quote"},
		{"#hex that is not a string", "CN=#020101", "not a BER-encoded string"},
		{"#hex with trailing data", "CN=#13014100", "not a BER-encoded string"},
		{"#hex with a control character", "CN=#0c0101", "decodes to text with control character U+0001"},
		{"escaped control character", `CN=a\00b`, "control character U+0000"},
		{"escaped invalid UTF-8", `CN=a\ffb`, "invalid UTF-8"},
		{"raw control character", "CN=a\nb", "control character U+000A"},
		{"percent-encoded control character", "CN=a%0Ab", "control character U+000A"},
		{"bidi override", "CN=a\u202eb", "bidi control"},
		{"too many attributes", strings.Repeat("CN=a,", maxDNAttributes) + "CN=a", "more than 64 attributes"},
		{"too long", "CN=" + strings.Repeat("a", maxDNLen), "more than the 4096 allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseDN(tt.in)
			if err == nil {
				t.Fatalf("ParseDN(%q) = %+v, want an error containing %q", tt.in, got, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("ParseDN(%q) error %q, want it to contain %q", tt.in, err, tt.wantErr)
			}
		})
	}
}

func TestDNFromRaw(t *testing.T) {
	leaf, _ := testCertificate(t, &appendixCPrivate(t).PublicKey)
	got, err := DNFromRaw(leaf.RawIssuer)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ParseDN(issuerRFC2253)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(want) || !want.Equal(got) {
		t.Fatalf("DNFromRaw = %+v, want Equal to %+v", got, want)
	}
	found := false
	for _, a := range got {
		if a.Type.Equal(oidOrganizationIdentifier) && a.Value == "NTRNO-123456789" {
			found = true
		}
	}
	if !found {
		t.Fatalf("DNFromRaw = %+v, want organizationIdentifier NTRNO-123456789", got)
	}

	empty, _ := asn1.Marshal(pkix.RDNSequence{})
	notString, _ := asn1.Marshal(pkix.RDNSequence{{{Type: oidCN, Value: 42}}})
	for name, raw := range map[string][]byte{
		"nil":             nil,
		"garbage":         {0x30, 0x05, 0x01},
		"trailing data":   append(append([]byte(nil), leaf.RawIssuer...), 0),
		"empty sequence":  empty,
		"non-string type": notString,
	} {
		if dn, err := DNFromRaw(raw); err == nil {
			t.Errorf("DNFromRaw(%s) = %+v, want an error", name, dn)
		}
	}
}

func TestDNEqual(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"CN=a,O=b", "O=b,CN=a", true},
		{"CN=a,O=b", "CN=a+O=b", true},
		{"CN=a,O=b", "CN=a,O=b,O=b", false},
		{"CN=a,O=b,O=b", "CN=a,O=b,CN=a", false},
		{"CN=a,CN=a,O=b", "O=b,CN=A,CN=a", true},
		{"CN=a,O=b", "CN=a,OU=b", false},
		{"CN=a", "CN=b", false},
	}
	for _, tt := range tests {
		a, err := ParseDN(tt.a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ParseDN(tt.b)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Equal(b); got != tt.want {
			t.Errorf("%q Equal %q = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := b.Equal(a); got != tt.want {
			t.Errorf("%q Equal %q = %v, want %v", tt.b, tt.a, got, tt.want)
		}
	}
	if (DN{}).Equal(DN{}) {
		t.Error("empty DNs are Equal; an empty issuer must never match")
	}
}

func TestValuesEqual(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"Test CA", "Test CA", true},
		{"Test CA", "test ca", true},
		{"  Test   CA ", "Test CA", true},
		{"Test CA", "TestCA", false},
		{"Test CA", "Test CA2", false},
		{"ØYVIND ÆRØ", "øyvind ærø", true},
		{"K", "\u212a", true}, // Kelvin sign folds to K
		{"ß", "ss", false},    // simple folding only, as strings.EqualFold
		{"a\xff", "a\xff", false},
		{"a\xff", "a\xfe", false},
		{"", "", true},
		{"", " ", true},
		{"a", "", false},
	}
	for _, tt := range tests {
		if got := valuesEqual(tt.a, tt.b); got != tt.want {
			t.Errorf("valuesEqual(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := valuesEqual(tt.b, tt.a); got != tt.want {
			t.Errorf("valuesEqual(%q, %q) = %v, want %v", tt.b, tt.a, got, tt.want)
		}
	}
}
