package signature

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// AlgorithmRSASHA256 is the only signature algorithm of this dialect:
// RSASSA-PKCS1-v1_5 with SHA-256.
const AlgorithmRSASHA256 = "rsa-sha256"

// AlgorithmECDSASHA256 is draft-cavage's ECDSA algorithm (P-256, SHA-256,
// the signature in ASN.1 DER), which the interface description's "must
// match the certificate" admits for a bank seal whose key is P-256. TPP
// requests stay rsa-sha256 (Parse); a signed response may use either
// (ParseSeal).
const AlgorithmECDSASHA256 = "ecdsa-sha256"

// RequestTarget is the pseudo-header name that stands for
// "<lower-case method> <request URI>" in the signing string.
const RequestTarget = "(request-target)"

const (
	// maxValueLen bounds the Signature header value before any work is
	// done. A 4096-bit signature is 684 base64 characters; the rest is a
	// keyId with a long DN and a header list, well below this.
	maxValueLen = 8192
	// maxHeaders bounds the signed header list, which keeps the duplicate
	// check (quadratic, allocation free) and the signing string small.
	maxHeaders = 32
	// minSignatureLen and maxSignatureLen are the sizes of RSA 2048 and
	// 4096 bit signatures, the key sizes the certificate check accepts.
	minSignatureLen = 256
	maxSignatureLen = 512
	// minECDSASignatureLen and maxECDSASignatureLen bound the ASN.1 DER
	// of a P-256 signature (two INTEGERs of at most 33 bytes).
	minECDSASignatureLen = 8
	maxECDSASignatureLen = 72
	// maxNameInError bounds how much of a parameter or header name an
	// error text repeats.
	maxNameInError = 40
)

// strictBase64 is standard base64 with padding that also rejects
// non-canonical trailing bits. Quoted strings cannot hold CR or LF, which
// the decoder would otherwise skip.
var strictBase64 = base64.StdEncoding.Strict()

// Params is a parsed Signature header value.
type Params struct {
	// KeyID is the keyId parameter as sent (after RFC 2047 decoding, with
	// any RFC 4514 backslash escapes kept), to be interpreted by
	// ParseKeyID.
	KeyID string
	// Algorithm is AlgorithmRSASHA256; Parse normalises its case.
	Algorithm string
	// Headers lists the signed header names in signing order: lower-case
	// field names and RequestTarget, each at most once.
	Headers []string
	// Signature is the decoded signature, 256 to 512 bytes.
	Signature []byte
}

// Parameter bits, for duplicate and completeness checks.
const (
	paramKeyID = 1 << iota
	paramAlgorithm
	paramHeaders
	paramSignature
	paramAll = paramKeyID | paramAlgorithm | paramHeaders | paramSignature
)

// Parse parses a Signature header value strictly.
//
// The value is a comma-separated list of name="value" pairs with optional
// spaces or tabs after each comma and nowhere else. Parameter names are
// case-insensitive; exactly keyId, algorithm, headers and signature must
// each appear once. Unknown parameters are rejected rather than ignored
// (draft-cavage says to ignore them): the interface description defines
// exactly four parts, and a signer that adds created or expires expects
// them enforced, so silently dropping them would fail open. Quoted strings
// have no escapes and no control characters. The one exception is keyId:
// its issuer DN may need RFC 4514 escapes (Go's pkix.Name.String and
// Java's RFC 2253 output write "\,"), so a backslash there is kept as sent,
// protects a following quote from ending the string, and is resolved by
// ParseDN. Everywhere else a backslash is an error.
//
// A value starting with "=?" is RFC 2047 encoded and is decoded with
// DecodeRFC2047 first.
func Parse(value string) (Params, error) {
	return parse(value, minSignatureLen, false)
}

// ParseSeal parses the Signature header of a bank's signed response as
// Parse does, where the algorithm may also be ecdsa-sha256, whose
// signature (ASN.1 DER of P-256's r and s) is 8 to 72 bytes.
func ParseSeal(value string) (Params, error) {
	p, err := parse(value, minECDSASignatureLen, true)
	switch {
	case err != nil:
		return Params{}, err
	case p.Algorithm == AlgorithmRSASHA256 && len(p.Signature) < minSignatureLen:
		return Params{}, fmt.Errorf("invalid Signature header: the rsa-sha256 signature is %d bytes; RSA signatures of 2048 to 4096 bits are %d to %d", len(p.Signature), minSignatureLen, maxSignatureLen)
	case p.Algorithm == AlgorithmECDSASHA256 && len(p.Signature) > maxECDSASignatureLen:
		return Params{}, fmt.Errorf("invalid Signature header: the ecdsa-sha256 signature is %d bytes; a P-256 signature is at most %d", len(p.Signature), maxECDSASignatureLen)
	}
	return p, nil
}

// parse is Parse with a configurable minimum signature size, so that tests
// can run the draft's 1024-bit vectors through the same code, and
// ecdsa-sha256 admitted or not.
func parse(value string, minSig int, ecdsa bool) (Params, error) {
	if value == "" {
		return Params{}, errors.New("invalid Signature header: empty; send keyId, algorithm, headers and signature")
	}
	if strings.HasPrefix(value, "=?") {
		decoded, err := DecodeRFC2047(value) // bounded by maxEncodedLen
		if err != nil {
			return Params{}, fmt.Errorf("invalid Signature header: %w", err)
		}
		value = decoded
	}
	if len(value) > maxValueLen {
		return Params{}, fmt.Errorf("invalid Signature header: %d bytes, more than the %d allowed", len(value), maxValueLen)
	}

	var p Params
	var seen int
	rest := value
	for {
		at := len(value) - len(rest)
		n := 0
		for n < len(rest) && isTokenByte(rest[n]) {
			n++
		}
		if n == 0 {
			return Params{}, fmt.Errorf("invalid Signature header: expected a parameter name at byte %d; write name=\"value\" pairs separated by commas", at)
		}
		name := rest[:n]
		rest = rest[n:]
		if rest == "" || rest[0] != '=' {
			return Params{}, fmt.Errorf("invalid Signature header: parameter %s must be followed by =\"value\" without spaces", clip(name))
		}
		rest = rest[1:]
		if rest == "" || rest[0] != '"' {
			return Params{}, fmt.Errorf("invalid Signature header: value of %s must be a quoted string", clip(name))
		}
		rest = rest[1:]

		bit := paramBit(name)
		if bit == 0 {
			return Params{}, fmt.Errorf("invalid Signature header: parameter %s is not supported; send only keyId, algorithm, headers and signature", clip(name))
		}
		if seen&bit != 0 {
			return Params{}, fmt.Errorf("invalid Signature header: parameter %s appears twice; send each parameter once", clip(name))
		}
		seen |= bit
		keyID := bit == paramKeyID
		end := quotedEnd(rest, keyID)
		if end < 0 {
			return Params{}, fmt.Errorf("invalid Signature header: value of %s has no closing quote", clip(name))
		}
		v := rest[:end]
		rest = rest[end+1:]
		if v == "" {
			return Params{}, fmt.Errorf("invalid Signature header: parameter %s is empty", clip(name))
		}
		if err := checkQuoted(v, keyID); err != nil {
			return Params{}, fmt.Errorf("invalid Signature header: value of %s: %w", clip(name), err)
		}

		switch bit {
		case paramKeyID:
			p.KeyID = v
		case paramAlgorithm:
			switch {
			case strings.EqualFold(v, AlgorithmRSASHA256):
				p.Algorithm = AlgorithmRSASHA256
			case ecdsa && strings.EqualFold(v, AlgorithmECDSASHA256):
				p.Algorithm = AlgorithmECDSASHA256
			default:
				return Params{}, fmt.Errorf("invalid Signature header: algorithm %q is not supported; use rsa-sha256", clip(v))
			}
		case paramHeaders:
			h, err := parseHeaderList(v)
			if err != nil {
				return Params{}, err
			}
			p.Headers = h
		case paramSignature:
			sig, err := decodeSignature(v, minSig)
			if err != nil {
				return Params{}, err
			}
			p.Signature = sig
		}

		if rest == "" {
			break
		}
		if rest[0] != ',' {
			return Params{}, fmt.Errorf("invalid Signature header: unexpected character at byte %d after the value of %s; separate parameters with a comma", len(value)-len(rest), clip(name))
		}
		rest = rest[1:]
		for rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			rest = rest[1:]
		}
		if rest == "" {
			return Params{}, errors.New("invalid Signature header: ends with a comma; remove it")
		}
	}

	if missing := paramAll &^ seen; missing != 0 {
		return Params{}, fmt.Errorf("invalid Signature header: no %s parameter; send keyId, algorithm, headers and signature", paramName(missing))
	}
	return p, nil
}

// paramBit returns the bit of a known parameter name, or 0.
func paramBit(name string) int {
	switch {
	case strings.EqualFold(name, "keyId"):
		return paramKeyID
	case strings.EqualFold(name, "algorithm"):
		return paramAlgorithm
	case strings.EqualFold(name, "headers"):
		return paramHeaders
	case strings.EqualFold(name, "signature"):
		return paramSignature
	}
	return 0
}

// paramName names the first parameter in the set bits.
func paramName(bits int) string {
	switch {
	case bits&paramKeyID != 0:
		return "keyId"
	case bits&paramAlgorithm != 0:
		return "algorithm"
	case bits&paramHeaders != 0:
		return "headers"
	}
	return "signature"
}

// quotedEnd returns the index of the quote that closes the quoted string
// s starts, or -1. In a keyId a backslash protects the next character, so
// that an RFC 4514 escaped quote in the issuer DN (\") does not end it.
func quotedEnd(s string, keyID bool) int {
	if !keyID {
		return strings.IndexByte(s, '"')
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// checkQuoted accepts printable ASCII and, when non-ASCII bytes are present,
// UTF-8 text that passes checkText. A backslash is accepted only in a
// keyId, where it is RFC 4514 escaping in the issuer DN and is left for
// ParseDN to resolve.
func checkQuoted(v string, keyID bool) error {
	ascii := true
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\' && !keyID:
			return fmt.Errorf("backslash at byte %d; quoted strings take no escapes", i)
		case c < 0x20 || c == 0x7f:
			return fmt.Errorf("control character U+%04X at byte %d", c, i)
		case c >= 0x80:
			ascii = false
		}
	}
	if ascii {
		return nil
	}
	return checkText(v)
}

// parseHeaderList splits the headers parameter into names: lower-case
// field names or RequestTarget, separated by single spaces, no duplicates.
// The names are substrings of v.
func parseHeaderList(v string) ([]string, error) {
	n := strings.Count(v, " ") + 1
	if n > maxHeaders {
		return nil, fmt.Errorf("invalid Signature header: headers lists %d names, more than the %d allowed", n, maxHeaders)
	}
	names := make([]string, 0, n)
	for rest := v; ; {
		name, tail, more := strings.Cut(rest, " ")
		if name == "" {
			return nil, errors.New("invalid Signature header: headers has an empty name; separate names with single spaces")
		}
		if err := checkHeaderName(name); err != nil {
			return nil, fmt.Errorf("invalid Signature header: %w", err)
		}
		for _, prev := range names {
			if prev == name {
				return nil, fmt.Errorf("invalid Signature header: headers lists %s twice; list each header once", clip(name))
			}
		}
		names = append(names, name)
		if !more {
			return names, nil
		}
		rest = tail
	}
}

// checkHeaderName accepts RequestTarget and lower-case header field names.
func checkHeaderName(name string) error {
	if name[0] == '(' {
		if name == RequestTarget {
			return nil
		}
		return fmt.Errorf("pseudo-header %q is not supported; only (request-target) is", clip(name))
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			return fmt.Errorf("header name %s in headers must be lower case", clip(name))
		}
		if !isTokenByte(c) {
			return fmt.Errorf("header name %q in headers has an invalid character at byte %d", clip(name), i)
		}
	}
	return nil
}

// decodeSignature decodes strict padded standard base64 and checks the
// size against RSA signature sizes.
func decodeSignature(v string, minSig int) ([]byte, error) {
	if len(v)%4 != 0 {
		return nil, errors.New("invalid Signature header: signature is not standard base64 with padding (length is not a multiple of 4)")
	}
	minEnc := base64.StdEncoding.EncodedLen(minSig)
	maxEnc := base64.StdEncoding.EncodedLen(maxSignatureLen)
	if len(v) < minEnc || len(v) > maxEnc {
		return nil, fmt.Errorf("invalid Signature header: signature is %d base64 characters; an RSA %d to 4096 bit signature has %d to %d", len(v), minSig*8, minEnc, maxEnc)
	}
	sig := make([]byte, strictBase64.DecodedLen(len(v)))
	n, err := strictBase64.Decode(sig, []byte(v))
	if err != nil {
		return nil, errors.New("invalid Signature header: signature is not standard base64 with padding")
	}
	if n < minSig || n > maxSignatureLen {
		return nil, fmt.Errorf("invalid Signature header: signature decodes to %d bytes; RSA %d to 4096 bit signatures are %d to %d bytes", n, minSig*8, minSig, maxSignatureLen)
	}
	return sig[:n:n], nil
}

// isTokenByte reports whether c is an RFC 9110 tchar.
func isTokenByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}

// clip shortens s for an error text, cutting at a rune boundary.
func clip(s string) string {
	if len(s) <= maxNameInError {
		return s
	}
	n := maxNameInError
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
