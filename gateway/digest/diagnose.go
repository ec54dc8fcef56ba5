package digest

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
)

// Of returns the Digest header value for body: SHA-256=<base64>.
func Of(body []byte) string {
	sum := sha256.Sum256(body)
	return "SHA-256=" + base64.StdEncoding.EncodeToString(sum[:])
}

// Explain says how d differs from the digests of body, for the sandbox's
// diagnostics: for each algorithm that does not match, the value computed
// over the bytes received beside the one claimed (both base64), and the
// common mistake the claimed value reveals, if it reveals one. It returns
// "" when every digest of d matches.
func Explain(d Digest, body []byte) string {
	var b bytes.Buffer
	if d.HasSHA256 {
		sum := sha256.Sum256(body)
		if sum != d.SHA256 {
			explain(&b, "SHA-256", sum[:], d.SHA256[:], body, func(p []byte) []byte { s := sha256.Sum256(p); return s[:] })
		}
	}
	if d.HasSHA512 {
		sum := sha512.Sum512(body)
		if sum != d.SHA512 && b.Len() > 0 {
			// Both wrong: the SHA-256 values say enough, and the text stays
			// within an error message's bound.
			b.WriteString("; Digest SHA-512 does not match either")
		} else if sum != d.SHA512 {
			explain(&b, "SHA-512", sum[:], d.SHA512[:], body, func(p []byte) []byte { s := sha512.Sum512(p); return s[:] })
		}
	}
	return b.String()
}

func explain(b *bytes.Buffer, alg string, computed, claimed, body []byte, hash func([]byte) []byte) {
	enc := base64.StdEncoding.EncodeToString
	fmt.Fprintf(b, "Digest %s does not match the request body: the gateway computed %s=%s over the %d bytes received, the header claims %s=%s", alg, alg, enc(computed), len(body), alg, enc(claimed))
	if hint := mistake(claimed, body, hash); hint != "" {
		b.WriteString(" (" + hint + ")")
	}
}

// mistake names the body the claimed digest is the digest of, when it is
// one of the usual wrong ones.
func mistake(claimed, body []byte, hash func([]byte) []byte) string {
	switch {
	case len(body) > 0 && bytes.Equal(claimed, hash(nil)):
		return "that is the digest of an empty body: hash the body you send"
	case bytes.HasSuffix(body, []byte("\n")) && bytes.Equal(claimed, hash(bytes.TrimSuffix(body, []byte("\n")))):
		return "that is the digest of the body without its final newline: hash every byte sent"
	case bytes.Equal(claimed, hash(append(body[:len(body):len(body)], '\n'))):
		return "that is the digest of the body with a final newline, which was not sent"
	case bytes.Contains(body, []byte("\n")) && bytes.Equal(claimed, hash(bytes.ReplaceAll(body, []byte("\n"), []byte("\r\n")))):
		return "that is the digest of the body with CRLF line ends, which were sent as LF"
	}
	return ""
}
