package digest

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// maxValueLen bounds the Digest header value. Both supported digests take
// 143 bytes; the rest is room for algorithms that are ignored.
const maxValueLen = 4096

// strictBase64 is padded standard base64 that also rejects non-canonical
// trailing bits.
var strictBase64 = base64.StdEncoding.Strict()

// Digest holds the supported digests of a Digest header. It is a plain
// value, so parsing allocates nothing.
type Digest struct {
	// SHA256 is the SHA-256 digest, set when HasSHA256 is true.
	SHA256 [sha256.Size]byte
	// HasSHA256 reports whether the header had a SHA-256 element.
	HasSHA256 bool
	// SHA512 is the SHA-512 digest, set when HasSHA512 is true.
	SHA512 [sha512.Size]byte
	// HasSHA512 reports whether the header had a SHA-512 element.
	HasSHA512 bool
}

// Parse parses a Digest header value: comma-separated
// <algorithm>=<base64> elements with optional spaces or tabs around each
// element. SHA-256 and SHA-512 are read, in any letter case; other
// algorithms are ignored, yet at least one supported algorithm must be
// present.
func Parse(value string) (Digest, error) {
	var d Digest
	if value == "" {
		return d, errors.New("Digest header is empty; send SHA-256=<base64 of the SHA-256 of the body>")
	}
	if len(value) > maxValueLen {
		return d, fmt.Errorf("Digest header is %d bytes, more than the %d allowed", len(value), maxValueLen)
	}
	for n, rest := 1, value; ; n++ {
		elem, tail, more := strings.Cut(rest, ",")
		elem = strings.Trim(elem, " \t")
		if elem == "" {
			return Digest{}, fmt.Errorf("Digest element %d is empty; separate <algorithm>=<base64> elements with single commas", n)
		}
		alg, enc, ok := strings.Cut(elem, "=")
		if !ok || !isToken(alg) {
			return Digest{}, fmt.Errorf("Digest element %d is not <algorithm>=<base64>", n)
		}
		switch {
		case strings.EqualFold(alg, "SHA-256"):
			if d.HasSHA256 {
				return Digest{}, errors.New("Digest lists SHA-256 twice; send it once")
			}
			if err := decode(d.SHA256[:], "SHA-256", enc); err != nil {
				return Digest{}, err
			}
			d.HasSHA256 = true
		case strings.EqualFold(alg, "SHA-512"):
			if d.HasSHA512 {
				return Digest{}, errors.New("Digest lists SHA-512 twice; send it once")
			}
			if err := decode(d.SHA512[:], "SHA-512", enc); err != nil {
				return Digest{}, err
			}
			d.HasSHA512 = true
		}
		if !more {
			break
		}
		rest = tail
	}
	if !d.HasSHA256 && !d.HasSHA512 {
		return Digest{}, errors.New("Digest has no SHA-256 or SHA-512 element (MD5, SHA and UNIXsum are not accepted); send SHA-256=<base64 of the SHA-256 of the body>")
	}
	return d, nil
}

// decode decodes enc, which must be strict padded standard base64 of
// exactly len(dst) bytes, into dst.
func decode(dst []byte, alg, enc string) error {
	if len(enc) == strictBase64.EncodedLen(len(dst)) {
		// Padded base64 of n bytes decodes into at most n+2 bytes.
		var buf [sha512.Size + 2]byte
		n, err := strictBase64.Decode(buf[:], []byte(enc))
		if err == nil && n == len(dst) {
			copy(dst, buf[:n])
			return nil
		}
	}
	// Slow path, errors only: say whether the encoding or the size is wrong.
	if len(enc) == 2*len(dst) && strings.Trim(enc, "0123456789abcdefABCDEF") == "" {
		return fmt.Errorf("Digest %s value is hex; send the digest in base64 (RFC 5843)", alg)
	}
	raw, err := strictBase64.DecodeString(enc)
	if err != nil {
		return fmt.Errorf("Digest %s value is not standard base64 with padding", alg)
	}
	return fmt.Errorf("Digest %s value decodes to %d bytes; a %s digest is %d bytes", alg, len(raw), alg, len(dst))
}

// isToken reports whether s is a non-empty RFC 9110 token.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			continue
		}
		switch c {
		case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
			continue
		}
		return false
	}
	return true
}
