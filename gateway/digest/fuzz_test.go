package digest

import (
	"encoding/base64"
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	f.Add("SHA-256=" + helloSHA256)
	f.Add("sha-256=" + helloSHA256 + ", SHA-512=" + helloSHA512)
	f.Add(md5Hello + ",\tSHA-512=" + helloSHA512 + " ," + unixSumElement)
	f.Add("SHA-256=" + helloSHA256 + ",SHA-256=" + helloSHA256)
	f.Add("SHA-256=" + helloSHA256[:42] + "F=")
	f.Fuzz(func(t *testing.T, value string) {
		d, err := Parse(value)
		if err != nil {
			if len(err.Error()) > 200 {
				t.Fatalf("error text of %d characters", len(err.Error()))
			}
			return
		}
		if !d.HasSHA256 && !d.HasSHA512 {
			t.Fatalf("Parse(%q) accepted no supported digest", value)
		}
		// The canonical form of what was parsed parses to the same.
		var parts []string
		if d.HasSHA256 {
			parts = append(parts, "SHA-256="+base64.StdEncoding.EncodeToString(d.SHA256[:]))
		}
		if d.HasSHA512 {
			parts = append(parts, "SHA-512="+base64.StdEncoding.EncodeToString(d.SHA512[:]))
		}
		canonical := strings.Join(parts, ", ")
		again, err := Parse(canonical)
		if err != nil || again != d {
			t.Fatalf("canonical form %q parses to %+v, %v; want %+v", canonical, again, err, d)
		}
		// Every accepted SHA-256 value appears verbatim in the input, since
		// decoding is strict (one encoding per digest).
		if d.HasSHA256 && !strings.Contains(value, base64.StdEncoding.EncodeToString(d.SHA256[:])) {
			t.Fatalf("Parse(%q) accepted a non-canonical SHA-256 encoding", value)
		}
		if d.HasSHA512 && !strings.Contains(value, base64.StdEncoding.EncodeToString(d.SHA512[:])) {
			t.Fatalf("Parse(%q) accepted a non-canonical SHA-512 encoding", value)
		}
	})
}
