package signature

import (
	"bytes"
	"crypto"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"filippo.io/bigmod"
)

// This file explains a signature that failed, for the sandbox's
// diagnostics: what the certificate's keyId is, which required headers the
// list lacks, and what the signature actually signed. None of it runs on a
// request that verifies, and none of it is needed to decide: only to say
// why. Texts are bounded and hold no signature bytes or certificate.

// maxDNInText bounds a DN written into a diagnostic text.
const maxDNInText = 160

// KeyIDFor returns the keyId this dialect wants for cert, as diagnostics
// show it: FormatKeyID's, the one the bank's seal sends and the TPP
// client derives; for an issuer FormatKeyID cannot write, "SN=<serial in
// upper-case hex>,CA=" and the issuer as FormatDN writes it.
func KeyIDFor(cert *x509.Certificate) string {
	if cert == nil || cert.SerialNumber == nil {
		return ""
	}
	if id, err := FormatKeyID(cert); err == nil {
		return id
	}
	return "SN=" + strings.ToUpper(cert.SerialNumber.Text(16)) + ",CA=" + FormatDN(cert.Issuer.Names)
}

// shortNames are the attribute names FormatDN writes; other types are
// written as dotted OIDs.
var shortNames = map[string]string{
	"2.5.4.3":                    "CN",
	"2.5.4.4":                    "SN",
	"2.5.4.5":                    "serialNumber",
	"2.5.4.6":                    "C",
	"2.5.4.7":                    "L",
	"2.5.4.8":                    "ST",
	"2.5.4.9":                    "STREET",
	"2.5.4.10":                   "O",
	"2.5.4.11":                   "OU",
	"2.5.4.97":                   "organizationIdentifier",
	"0.9.2342.19200300.100.1.1":  "UID",
	"0.9.2342.19200300.100.1.25": "DC",
	"1.2.840.113549.1.9.1":       "emailAddress",
}

// FormatDN writes a certificate name's attributes (pkix.Name.Names, in
// certificate order) as RFC 4514 does: last first, separated by ',',
// special characters escaped with '\', control characters and invalid
// UTF-8 as '\' and two hex digits, so the result is safe in any text.
func FormatDN(names []pkix.AttributeTypeAndValue) string {
	var sb strings.Builder
	for i := len(names) - 1; i >= 0; i-- {
		if i != len(names)-1 {
			sb.WriteByte(',')
		}
		writeAttribute(&sb, names[i].Type, fmt.Sprint(names[i].Value))
	}
	return sb.String()
}

func writeAttribute(sb *strings.Builder, typ asn1.ObjectIdentifier, v string) {
	oid := typ.String()
	if name, ok := shortNames[oid]; ok {
		sb.WriteString(name)
	} else {
		sb.WriteString(oid)
	}
	sb.WriteByte('=')
	for i := 0; i < len(v); {
		r, size := utf8.DecodeRuneInString(v[i:])
		switch {
		case r == utf8.RuneError && size == 1, r < 0x20, r == 0x7f, 0x80 <= r && r < 0xa0:
			for j := i; j < i+size; j++ {
				fmt.Fprintf(sb, `\%02X`, v[j])
			}
		case strings.ContainsRune(`,+"\<>;`, r), r == '#' && i == 0, r == ' ' && (i == 0 || i == len(v)-1):
			sb.WriteByte('\\')
			sb.WriteRune(r)
		default:
			sb.WriteString(v[i : i+size])
		}
		i += size
	}
}

// Mismatch says why k does not identify cert, or returns "" when it does.
// It names the part at fault, what the certificate says instead, and the
// common mistakes it recognises: a serial number written in decimal, the
// subject's DN where the issuer's belongs.
func (k KeyID) Mismatch(cert *x509.Certificate) string {
	if cert == nil || cert.SerialNumber == nil || k.Serial == nil || k.Matches(cert) {
		return ""
	}
	var parts []string
	if k.Serial.Cmp(cert.SerialNumber) != 0 {
		p := fmt.Sprintf("its SN %s is not the certificate's serial number %s", clipHex(k.Serial), clipHex(cert.SerialNumber))
		if dec, ok := new(big.Int).SetString(k.Serial.Text(16), 10); ok && dec.Cmp(cert.SerialNumber) == 0 {
			p += " (you wrote the serial number in decimal; write it in hex)"
		}
		parts = append(parts, p)
	}
	issuer := k.Issuer.names()
	if !k.Issuer.equalNames(cert.Issuer.Names) {
		p := "its CA is not the certificate's issuer " + clipText(FormatDN(cert.Issuer.Names), maxDNInText)
		extra := unpaired(issuer, cert.Issuer.Names)
		switch {
		case len(cert.Subject.Names) > 0 && k.Issuer.equalNames(cert.Subject.Names):
			p += " (it names the certificate's subject; CA is the DN of the CA that issued it)"
		case len(extra) > 0 && len(unpaired(extra, cert.Subject.Names)) == 0:
			slices.Reverse(extra) // in the order sent
			p += " (" + clipText(FormatDN(extra), maxDNInText/2) + " are the certificate's subject's, not its issuer's; CA is the DN of the CA that issued the certificate)"
		default:
			if d := dnDifference(issuer, cert.Issuer.Names); d != "" {
				p += " (" + d + ")"
			}
		}
		parts = append(parts, p)
	}
	return "keyId does not identify TPP-Signature-Certificate: " + strings.Join(parts, "; ")
}

// names returns d as certificate-name attributes, for FormatDN and the
// comparisons of Mismatch.
func (d DN) names() []pkix.AttributeTypeAndValue {
	out := make([]pkix.AttributeTypeAndValue, len(d))
	for i, a := range d {
		out[i] = pkix.AttributeTypeAndValue{Type: a.Type, Value: a.Value}
	}
	return out
}

// dnDifference says which attributes of the keyId's CA (sent) the
// certificate's issuer (want) lacks, and which it has that the CA lacks,
// each as "type=value"; values compare as Equal compares them.
func dnDifference(sent, want []pkix.AttributeTypeAndValue) string {
	extra, missing := unpaired(sent, want), unpaired(want, sent)
	var parts []string
	if len(extra) > 0 {
		// In the order sent (FormatDN writes last first).
		slices.Reverse(extra)
		parts = append(parts, "the certificate's issuer has no "+clipText(FormatDN(extra), maxDNInText/2))
	}
	if len(missing) > 0 {
		parts = append(parts, "your CA lacks "+clipText(FormatDN(missing), maxDNInText/2))
	}
	return strings.Join(parts, "; ")
}

// unpaired returns the attributes of a that no distinct equal attribute
// of b pairs with, in a's order.
func unpaired(a, b []pkix.AttributeTypeAndValue) []pkix.AttributeTypeAndValue {
	used := make([]bool, len(b))
	var out []pkix.AttributeTypeAndValue
	for _, x := range a {
		xv, _ := x.Value.(string)
		found := false
		for j, y := range b {
			yv, ok := y.Value.(string)
			if !used[j] && ok && x.Type.Equal(y.Type) && valuesEqual(xv, yv) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			out = append(out, x)
		}
	}
	return out
}

// clipHex writes a serial number in upper-case hex, shortened if absurdly
// long (a keyId's is at most 40 digits).
func clipHex(n *big.Int) string {
	return clipText(strings.ToUpper(n.Text(16)), 48)
}

// clipText shortens s to at most n bytes at a rune boundary, marking the cut.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Uncovered is a header the dialect wants in the Signature headers list
// that the list lacks, and why.
type Uncovered struct {
	// Name is the header as the list writes it: lower case.
	Name string
	// Reason says why it must be listed.
	Reason string
}

// UncoveredHeaders is CheckCoverage reporting every header missing from
// the list instead of the first.
func UncoveredHeaders(headers []string, h http.Header, requireTarget bool) []Uncovered {
	var out []Uncovered
	if requireTarget && !slices.Contains(headers, RequestTarget) {
		out = append(out, Uncovered{RequestTarget, "this route demands it"})
	}
	for _, name := range [...]string{"date", "x-request-id"} {
		if !slices.Contains(headers, name) {
			out = append(out, Uncovered{name, "always required"})
		}
	}
	for _, c := range conditionalHeaders {
		if len(h[c.canonical]) > 0 && !slices.Contains(headers, c.name) {
			out = append(out, Uncovered{c.name, "the request has a " + c.display + " header"})
		}
	}
	return out
}

// Recovered is what an RSA signature encodes under a public key: for a
// RSASSA-PKCS1-v1_5 signature made with the matching private key, the hash
// algorithm and the hash of what was signed. Anyone holding the
// certificate can compute it from the signature; it reveals nothing the
// request did not.
type Recovered struct {
	// Hash is the hash algorithm of the PKCS#1 v1.5 encoding found, 0 when
	// the signature holds none (another key, or another scheme).
	Hash crypto.Hash
	// Sum is the hash the signature signs, when Hash is set.
	Sum []byte
	// PSS reports an encoding that ends as RSASSA-PSS's do (0xbc), when
	// Hash is 0: a likely sign of the wrong scheme rather than the wrong key.
	PSS bool
}

// digestInfos are the DER DigestInfo prefixes of the hashes a signer may
// have used by mistake instead of SHA-256 (RFC 8017 section 9.2, note 1).
var digestInfos = []struct {
	hash   crypto.Hash
	prefix []byte
}{
	{crypto.SHA256, sha256DigestInfo},
	{crypto.SHA1, []byte{0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a, 0x05, 0x00, 0x04, 0x14}},
	{crypto.SHA384, []byte{0x30, 0x41, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02, 0x05, 0x00, 0x04, 0x30}},
	{crypto.SHA512, []byte{0x30, 0x51, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03, 0x05, 0x00, 0x04, 0x40}},
}

// Recover opens sig with the public key: s^e mod n, then the PKCS#1 v1.5
// encoding of some hash, if it is one.
func (k *Key) Recover(sig []byte) Recovered {
	if len(sig) != k.n.Size() {
		return Recovered{}
	}
	s, err := bigmod.NewNat().SetBytes(sig, k.n)
	if err != nil {
		return Recovered{}
	}
	em := bigmod.NewNat().ExpShortVarTime(s, k.e, k.n).Bytes(k.n)
	if len(em) < 11 || em[0] != 0 || em[1] != 1 {
		return Recovered{PSS: em[len(em)-1] == 0xbc}
	}
	i := 2
	for i < len(em) && em[i] == 0xff {
		i++
	}
	if i < 10 || i == len(em) || em[i] != 0 {
		return Recovered{}
	}
	rest := em[i+1:]
	for _, d := range digestInfos {
		if len(rest) == len(d.prefix)+d.hash.Size() && bytes.Equal(rest[:len(d.prefix)], d.prefix) {
			return Recovered{Hash: d.hash, Sum: rest[len(d.prefix):]}
		}
	}
	return Recovered{}
}

// SigningInput is what a signing string is built from, for
// ExplainDifference.
type SigningInput struct {
	// Headers is the Signature headers list.
	Headers []string
	// Method and Target are the request method and the request-target as
	// sent; OtherTarget, when set, is another request-target a client may
	// have signed instead (the path without a base path the server strips).
	Method, Target, OtherTarget string
	// Header is the request's header map.
	Header http.Header
}

// ExplainDifference looks for the mistake that made a client sign a
// string whose SHA-256 is sum instead of the signing string in: a final
// newline, CRLF line ends, header names in their transmitted case, no
// space after the colon, a listed header left out, the headers in another
// order, or another request-target. It returns what the client did, or ""
// when none of these explains sum. It builds a few dozen strings and
// hashes them: for diagnostics only.
func ExplainDifference(sum []byte, in SigningInput) string {
	lines, ok := signingLines(in)
	if !ok {
		return ""
	}
	match := func(s string) bool {
		h := sha256.Sum256([]byte(s))
		return bytes.Equal(h[:], sum)
	}
	join := strings.Join(lines, "\n")
	switch {
	case match(join + "\n"):
		return "your client signed the string with a final newline; the signing string has none"
	case match(strings.Join(lines, "\r\n")):
		return "your client joined the lines with CRLF; join them with LF (\\n) alone"
	}
	cased := make([]string, len(lines))
	tight := make([]string, len(lines))
	for i, l := range lines {
		name, value, _ := strings.Cut(l, ": ")
		tight[i] = name + ":" + value
		if name != RequestTarget {
			name = http.CanonicalHeaderKey(name)
		}
		cased[i] = name + ": " + value
	}
	switch {
	case match(strings.Join(cased, "\n")):
		return "your client wrote the header names as sent (Date:); the signing string has them in lower case (date:)"
	case match(strings.Join(tight, "\n")):
		return "your client wrote no space after the colons; each line is \"name: value\""
	}
	for i := range lines {
		without := slices.Concat(lines[:i], lines[i+1:])
		if len(without) > 0 && match(strings.Join(without, "\n")) {
			return "your client signed without the " + clip(in.Headers[i]) + " line although headers lists it"
		}
	}
	sorted := slices.Clone(lines)
	slices.Sort(sorted)
	if !slices.Equal(sorted, lines) && match(strings.Join(sorted, "\n")) {
		return "your client signed the lines in alphabetical order; sign them in the order headers lists them"
	}
	if i := slices.Index(in.Headers, RequestTarget); i >= 0 {
		alt := slices.Clone(lines)
		for _, t := range []struct{ line, says string }{
			{RequestTarget + ": " + in.Method + " " + in.Target, "with the method in upper case"},
			{RequestTarget + ": " + strings.ToLower(in.Method) + " " + in.OtherTarget, "for " + clip(in.OtherTarget) + " (without the base path)"},
		} {
			alt[i] = t.line
			if t.line != lines[i] && !strings.HasSuffix(t.line, " ") && match(strings.Join(alt, "\n")) {
				return "your client signed (request-target) " + t.says + "; sign the method in lower case and the path and query exactly as sent"
			}
		}
	}
	return ""
}

// signingLines returns the lines of the signing string of in.
func signingLines(in SigningInput) ([]string, bool) {
	s, err := AppendSigningString(nil, in.Headers, in.Method, in.Target, in.Header)
	if err != nil {
		return nil, false
	}
	return strings.Split(string(s), "\n"), true
}

// SumBase64 is the base64 of the SHA-256 of s, as diagnostics print a
// signing string's hash for a client to compare with its own.
func SumBase64(s []byte) string {
	h := sha256.Sum256(s)
	return base64.StdEncoding.EncodeToString(h[:])
}
