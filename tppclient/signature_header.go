package tppclient

import (
	"encoding/base64"
	"errors"
	"fmt"
	"mime"
	"strings"
)

// Algorithms of the Signature header: a TPP signs rsa-sha256; a bank's
// seal signs rsa-sha256 with an RSA key and ecdsa-sha256 with a P-256 one.
const (
	algorithmRSASHA256   = "rsa-sha256"
	algorithmECDSASHA256 = "ecdsa-sha256"
)

// maxSignatureHeader bounds a Signature header value this client reads.
const maxSignatureHeader = 8192

// signatureParams are the four parts of a draft-cavage Signature header.
type signatureParams struct {
	keyID     string
	algorithm string
	headers   []string
	signature []byte
}

// formatSignature writes the Signature header value: keyId, algorithm,
// the signed header names in order and the signature in base64. A value
// that is not ASCII (an issuer with non-ASCII characters in the keyId) is
// sent as one RFC 2047 B-encoded UTF-8 word, as the description's rule 8
// asks for header values.
func formatSignature(keyID, algorithm string, headers []string, sig []byte) string {
	v := `keyId="` + keyID + `",algorithm="` + algorithm + `",headers="` +
		strings.Join(headers, " ") + `",signature="` + base64.StdEncoding.EncodeToString(sig) + `"`
	for i := 0; i < len(v); i++ {
		if v[i] >= 0x80 {
			return mime.BEncoding.Encode("utf-8", v)
		}
	}
	return v
}

// parseSignature reads a bank's Signature header: name="value" pairs
// separated by commas (spaces may follow a comma), keyId, algorithm,
// headers and signature each exactly once and nothing else, no control
// characters. In the keyId a backslash is the issuer DN's escape and
// keeps a following quote inside the value; elsewhere it is refused. A
// value that starts with "=?" is RFC 2047 encoded and decoded first.
//
// It is written for this client alone: it shares no code with the bank's
// parser in gateway/signature, so that a bug in one is not hidden by the
// other; a differential test holds the two to the same results.
func parseSignature(value string) (signatureParams, error) {
	var p signatureParams
	if strings.HasPrefix(value, "=?") {
		if len(value) > 2*maxSignatureHeader {
			return p, errors.New("the response's Signature header is too long")
		}
		decoded, err := new(mime.WordDecoder).DecodeHeader(value)
		if err != nil {
			return p, fmt.Errorf("the response's Signature header is not valid RFC 2047: %v", err)
		}
		value = decoded
	}
	if len(value) > maxSignatureHeader {
		return p, errors.New("the response's Signature header is too long")
	}
	seen := map[string]bool{}
	rest := value
	for {
		eq := strings.IndexByte(rest, '=')
		if eq <= 0 {
			return p, errors.New(`the response's Signature header is not a list of name="value" pairs`)
		}
		name := strings.ToLower(rest[:eq])
		rest = rest[eq+1:]
		if len(rest) == 0 || rest[0] != '"' {
			return p, fmt.Errorf("the response's Signature parameter %q is not quoted", name)
		}
		rest = rest[1:]
		end := closingQuote(rest, name == "keyid")
		if end < 0 {
			return p, fmt.Errorf("the response's Signature parameter %q has no closing quote", name)
		}
		val := rest[:end]
		rest = rest[end+1:]
		for i := 0; i < len(val); i++ {
			if c := val[i]; c < 0x20 || c == 0x7f || c == '\\' && name != "keyid" {
				return p, fmt.Errorf("the response's Signature parameter %q has a forbidden character", name)
			}
		}
		if seen[name] {
			return p, fmt.Errorf("the response's Signature header has %q twice", name)
		}
		seen[name] = true
		switch name {
		case "keyid":
			p.keyID = val
		case "algorithm":
			p.algorithm = val
		case "headers":
			p.headers = strings.Split(val, " ")
			for _, h := range p.headers {
				if h == "" || h != strings.ToLower(h) {
					return p, fmt.Errorf("the response's signed header list %q is not lower-case names separated by single spaces", val)
				}
			}
		case "signature":
			sig, err := base64.StdEncoding.Strict().DecodeString(val)
			if err != nil || len(sig) == 0 {
				return p, errors.New("the response's signature is not standard base64")
			}
			p.signature = sig
		default:
			return p, fmt.Errorf("the response's Signature header has the parameter %q, which this dialect does not define", name)
		}
		if rest == "" {
			break
		}
		if rest[0] != ',' {
			return p, errors.New("the response's Signature parameters are not separated by commas")
		}
		rest = strings.TrimLeft(rest[1:], " ")
	}
	if len(seen) != 4 {
		return p, errors.New("the response's Signature header lacks one of keyId, algorithm, headers and signature")
	}
	if p.algorithm != algorithmRSASHA256 && p.algorithm != algorithmECDSASHA256 {
		return p, fmt.Errorf("the response is signed with %q; a bank signs rsa-sha256 or ecdsa-sha256", p.algorithm)
	}
	return p, nil
}

// closingQuote is the index of the quote that ends the quoted value s
// starts, or -1; in a keyId, a backslash keeps the next byte inside.
func closingQuote(s string, keyID bool) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if keyID {
				i++
			}
		case '"':
			return i
		}
	}
	return -1
}
