package digest

import (
	"strings"
	"testing"
)

// TestExplain: each digest that does not match is shown computed beside
// claimed, with the mistake the claimed value reveals; a match explains
// nothing.
func TestExplain(t *testing.T) {
	body := []byte(`{"a":1}` + "\n")
	parse := func(v string) Digest {
		d, err := Parse(v)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if got := Explain(parse(Of(body)), body); got != "" {
		t.Fatalf("a matching digest explained: %q", got)
	}
	for _, tt := range []struct {
		claimed string
		body    []byte
		want    []string
	}{
		{Of([]byte(`{"a":2}`)), body, []string{"Digest SHA-256 does not match the request body: the gateway computed " + Of(body) + " over the 8 bytes received, the header claims " + Of([]byte(`{"a":2}`))}},
		{Of(nil), body, []string{"(that is the digest of an empty body: hash the body you send)"}},
		{Of(body[:7]), body, []string{"(that is the digest of the body without its final newline: hash every byte sent)"}},
		{Of(body), body[:7], []string{"(that is the digest of the body with a final newline, which was not sent)"}},
		{Of([]byte("a\r\nb")), []byte("a\nb"), []string{"with CRLF line ends"}},
		{"SHA-512=" + helloSHA512, body, []string{"Digest SHA-512 does not match the request body: the gateway computed SHA-512="}},
		{Of(nil) + ",SHA-512=" + helloSHA512, body, []string{"empty body", "; Digest SHA-512 does not match either"}},
	} {
		got := Explain(parse(tt.claimed), tt.body)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tt.claimed, got, w)
			}
		}
		if len(got) > 500 {
			t.Errorf("%d bytes", len(got))
		}
	}
}
