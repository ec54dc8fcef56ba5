package digest

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"strings"
	"testing"
)

// Reference values from /work/shared/reference/http-signature-vectors.md
// (hello world) and the well-known digests of the empty string.
const (
	helloBody      = `{"hello": "world"}`
	helloSHA256    = "X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE="
	helloSHA512    = "WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew=="
	emptySHA256    = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
	emptySHA512    = "z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg=="
	otherSHA256    = "ypeBEsobvcr6wjGzmiPcTaeG7/gUfE5yuYB3ha/uSLs=" // SHA-256 of "a"
	md5Hello       = "MD5=ZajifYh5KDgxtmS9i38K1A=="
	unixSumElement = "UNIXsum=30637"
)

// TestReferenceValues checks the constants themselves.
func TestReferenceValues(t *testing.T) {
	for _, tt := range []struct {
		body, sha256, sha512 string
	}{
		{helloBody, helloSHA256, helloSHA512},
		{"", emptySHA256, emptySHA512},
	} {
		s256 := sha256.Sum256([]byte(tt.body))
		s512 := sha512.Sum512([]byte(tt.body))
		if got := base64.StdEncoding.EncodeToString(s256[:]); got != tt.sha256 {
			t.Errorf("SHA-256(%q) = %s, constant says %s", tt.body, got, tt.sha256)
		}
		if got := base64.StdEncoding.EncodeToString(s512[:]); got != tt.sha512 {
			t.Errorf("SHA-512(%q) = %s, constant says %s", tt.body, got, tt.sha512)
		}
	}
}

func TestParseAndVerify(t *testing.T) {
	tests := []struct {
		name      string
		value     string
		body      string
		has256    bool
		has512    bool
		verifyErr string // empty: matches
	}{
		{"SHA-256", "SHA-256=" + helloSHA256, helloBody, true, false, ""},
		{"SHA-512", "SHA-512=" + helloSHA512, helloBody, false, true, ""},
		{"both", "SHA-256=" + helloSHA256 + ", SHA-512=" + helloSHA512, helloBody, true, true, ""},
		{"both, no space, reversed", "SHA-512=" + helloSHA512 + ",SHA-256=" + helloSHA256, helloBody, true, true, ""},
		{"lower-case name (Rabobank)", "sha-256=" + helloSHA256, helloBody, true, false, ""},
		{"mixed-case name", "Sha-512=" + helloSHA512, helloBody, false, true, ""},
		{"empty body", "SHA-256=" + emptySHA256 + ",SHA-512=" + emptySHA512, "", true, true, ""},
		{"unknown algorithms ignored", md5Hello + ", SHA-256=" + helloSHA256 + ", " + unixSumElement + ", id-sha-256=x", helloBody, true, false, ""},
		{"tabs around elements", "\tSHA-256=" + helloSHA256 + "\t,\tSHA-512=" + helloSHA512 + " ", helloBody, true, true, ""},
		{"SHA-256 mismatch", "SHA-256=" + otherSHA256, helloBody, true, false, "Digest SHA-256 does not match"},
		{"SHA-256 of the empty body sent with a body", "SHA-256=" + emptySHA256, helloBody, true, false, "Digest SHA-256 does not match"},
		{"body re-serialised", "SHA-256=" + helloSHA256, `{"hello":"world"}`, true, false, "Digest SHA-256 does not match"},
		{"SHA-256 matches, SHA-512 does not", "SHA-256=" + helloSHA256 + ",SHA-512=" + emptySHA512, helloBody, true, true, "Digest SHA-512 does not match"},
		{"SHA-512 matches, SHA-256 does not", "SHA-256=" + emptySHA256 + ",SHA-512=" + helloSHA512, helloBody, true, true, "Digest SHA-256 does not match"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse(tt.value)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.value, err)
			}
			if d.HasSHA256 != tt.has256 || d.HasSHA512 != tt.has512 {
				t.Fatalf("Parse(%q) has SHA-256 %v, SHA-512 %v; want %v, %v", tt.value, d.HasSHA256, d.HasSHA512, tt.has256, tt.has512)
			}
			err = d.Verify([]byte(tt.body))
			switch {
			case tt.verifyErr == "" && err != nil:
				t.Fatalf("Verify: %v", err)
			case tt.verifyErr != "" && (err == nil || !strings.Contains(err.Error(), tt.verifyErr)):
				t.Fatalf("Verify error %v, want one containing %q", err, tt.verifyErr)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	tests := []struct {
		name, value, wantErr string
	}{
		{"empty", "", "Digest header is empty"},
		{"too long", "SHA-256=" + helloSHA256 + "," + strings.Repeat("x", maxValueLen), "more than the 4096 allowed"},
		{"MD5 only", md5Hello, "no SHA-256 or SHA-512 element"},
		{"SHA only", "SHA=fNmF5qrmLYmWFi5NUBVbZlNbGbs=", "no SHA-256 or SHA-512 element"},
		{"UNIXsum only", unixSumElement, "no SHA-256 or SHA-512 element"},
		{"SHA256 without dash", "SHA256=" + helloSHA256, "no SHA-256 or SHA-512 element"},
		{"SHA-256 twice", "SHA-256=" + helloSHA256 + ",SHA-256=" + helloSHA256, "Digest lists SHA-256 twice"},
		{"SHA-256 twice, other case", "SHA-256=" + helloSHA256 + ",sha-256=" + helloSHA256, "Digest lists SHA-256 twice"},
		{"SHA-512 twice", "SHA-512=" + helloSHA512 + ",SHA-512=" + helloSHA512, "Digest lists SHA-512 twice"},
		{"URL-safe base64", "SHA-256=" + strings.NewReplacer("+", "-", "/", "_").Replace(emptySHA256), "Digest SHA-256 value is not standard base64 with padding"},
		{"unpadded base64", "SHA-256=" + strings.TrimRight(helloSHA256, "="), "Digest SHA-256 value is not standard base64"},
		{"non-canonical padding bits", "SHA-256=" + helloSHA256[:42] + "F=", "Digest SHA-256 value is not standard base64"},
		{"space inside base64", "SHA-256=" + helloSHA256[:20] + " " + helloSHA256[20:], "not standard base64"},
		{"hex instead of base64", "SHA-256=5f8f04f6a3a892aaabbddb6cf273894493773960d4a325b105fee46eef4304f1", "Digest SHA-256 value is hex; send the digest in base64"},
		{"SHA-256 value of 20 bytes", "SHA-256=" + base64.StdEncoding.EncodeToString(make([]byte, 20)), "Digest SHA-256 value decodes to 20 bytes; a SHA-256 digest is 32 bytes"},
		{"SHA-512 value sent as SHA-256", "SHA-256=" + helloSHA512, "Digest SHA-256 value decodes to 64 bytes"},
		{"SHA-256 value sent as SHA-512", "SHA-512=" + helloSHA256, "Digest SHA-512 value decodes to 32 bytes"},
		{"empty value", "SHA-256=", "Digest SHA-256 value decodes to 0 bytes"},
		{"no =", "SHA-256", "Digest element 1 is not <algorithm>=<base64>"},
		{"empty algorithm", "=" + helloSHA256, "Digest element 1 is not"},
		{"space before =", "SHA-256 =" + helloSHA256, "Digest element 1 is not"},
		{"space after =", "SHA-256= " + helloSHA256, "not standard base64"},
		{"empty element", "SHA-256=" + helloSHA256 + ",,MD5=x", "Digest element 2 is empty"},
		{"trailing comma", "SHA-256=" + helloSHA256 + ",", "Digest element 2 is empty"},
		{"semicolon separator", "SHA-256=" + helloSHA256 + ";SHA-512=" + helloSHA512, "not standard base64"},
		{"RFC 9530 syntax", "sha-256=:" + helloSHA256 + ":", "not standard base64"},
		{"bad supported element after a good one", "SHA-256=" + helloSHA256 + ",SHA-512=abc", "Digest SHA-512 value is not standard base64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse(tt.value)
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want an error containing %q", tt.value, d, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Parse(%q) error %q, want it to contain %q", tt.value, err, tt.wantErr)
			}
			if len(err.Error()) > 200 {
				t.Errorf("error text is %d characters, more than 200", len(err.Error()))
			}
		})
	}
}

func TestVerifyZeroDigest(t *testing.T) {
	if err := (Digest{}).Verify(nil); err == nil {
		t.Fatal("Verify of a zero Digest succeeded, want an error")
	}
}

func TestParseAllocations(t *testing.T) {
	v := "SHA-256=" + helloSHA256 + ", SHA-512=" + helloSHA512
	body := []byte(helloBody)
	allocs := testing.AllocsPerRun(100, func() {
		d, err := Parse(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Verify(body); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("Parse and Verify allocate %v times, want 0", allocs)
	}
}
