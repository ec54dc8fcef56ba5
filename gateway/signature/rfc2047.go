package signature

import (
	"errors"
	"fmt"
	"mime"
	"strings"
)

// maxEncodedLen bounds an RFC 2047 value: base64 grows the Signature value
// by a third plus about 15 bytes per encoded-word.
const maxEncodedLen = 2 * maxValueLen

// wordDecoder decodes single encoded-words. Its CharsetReader is nil, so it
// handles only the charsets Go knows natively; decodeWords admits only
// utf-8 and iso-8859-1 of those.
var wordDecoder mime.WordDecoder

// DecodeRFC2047 decodes a value made only of one or more RFC 2047
// encoded-words (=?charset?B?text?= or =?charset?Q?text?=) separated by
// spaces or tabs, which RFC 2047 section 6.2 says to drop between adjacent
// encoded-words. Charsets utf-8 and iso-8859-1 are accepted, case-
// insensitively, as are the encodings B and Q. Plain text before, between
// or after the words is rejected, as is a result that is not valid UTF-8
// or contains control characters (C0, DEL, C1), bidi controls,
// noncharacters or characters outside the Basic Multilingual Plane.
//
// A multi-byte character may be split across adjacent words; only the
// concatenated result has to be valid UTF-8.
func DecodeRFC2047(v string) (string, error) {
	if v == "" {
		return "", errors.New("RFC 2047 value is empty")
	}
	if len(v) > maxEncodedLen {
		return "", fmt.Errorf("RFC 2047 value is %d bytes, more than the %d allowed", len(v), maxEncodedLen)
	}
	if last := v[len(v)-1]; last == ' ' || last == '\t' {
		return "", errors.New("RFC 2047 value ends with whitespace; remove it")
	}
	var out strings.Builder
	out.Grow(len(v) * 3 / 4)
	for n, rest := 1, v; rest != ""; n++ {
		end := strings.IndexAny(rest, " \t")
		if end < 0 {
			end = len(rest)
		}
		word := rest[:end]
		rest = rest[end:]
		for rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			rest = rest[1:]
		}
		if err := checkEncodedWord(word); err != nil {
			return "", fmt.Errorf("RFC 2047 value: encoded-word %d %w", n, err)
		}
		decoded, err := wordDecoder.Decode(word)
		if err != nil {
			return "", fmt.Errorf("RFC 2047 value: encoded-word %d does not decode; check its B or Q encoding", n)
		}
		out.WriteString(decoded)
	}
	s := out.String()
	if err := checkText(s); err != nil {
		return "", fmt.Errorf("RFC 2047 value decodes to text with %w", err)
	}
	return s, nil
}

// checkEncodedWord checks the =?charset?encoding?text?= frame and the
// charset; mime.WordDecoder checks the encoded text.
func checkEncodedWord(word string) error {
	if len(word) < 8 || !strings.HasPrefix(word, "=?") || !strings.HasSuffix(word, "?=") || strings.Count(word, "?") != 4 {
		return errors.New("is not of the form =?charset?B?text?= (plain text is not allowed around encoded-words)")
	}
	charset, rest, _ := strings.Cut(word[2:], "?")
	if !strings.EqualFold(charset, "utf-8") && !strings.EqualFold(charset, "iso-8859-1") {
		return fmt.Errorf("has charset %q; use utf-8 or iso-8859-1", clip(charset))
	}
	if rest[1] != '?' || !strings.ContainsRune("BbQq", rune(rest[0])) {
		return errors.New("has an encoding other than B or Q")
	}
	return nil
}
