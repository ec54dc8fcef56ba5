package caddymodule

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

func TestContextSigningCaddyfile(t *testing.T) {
	for _, tt := range []struct {
		in, err string
	}{
		{in: "obgw_context_signing asymmetric"},
		{in: "obgw_context_signing", err: "want one argument, asymmetric"},
		{in: "obgw_context_signing hs256", err: `want asymmetric, not "hs256"`},
		{in: "obgw_context_signing asymmetric extra", err: "want one argument"},
		{in: "obgw_context_signing asymmetric {\n x\n}", err: "takes no block"},
	} {
		s := new(ContextSigning)
		err := s.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tt.in))
		switch {
		case tt.err == "" && (err != nil || s.Require != "asymmetric"):
			t.Errorf("%q: %v, %+v", tt.in, err, s)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%q: %v, want %q", tt.in, err, tt.err)
		}
	}
}

// TestReadmeUpstreamLinesAreShipped: the Caddyfile lines the README's
// "obgw in front of your own backend" shows are the shipped ones (of the
// Caddyfile and policies/backend-upstream.caddy), so a bank copying them
// copies what the tests run.
func TestReadmeUpstreamLinesAreShipped(t *testing.T) {
	read := func(name string) string {
		raw, err := os.ReadFile("../" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(raw)
	}
	shipped := map[string]bool{}
	for _, f := range []string{"Caddyfile", "policies/backend-upstream.caddy"} {
		for _, l := range strings.Split(read(f), "\n") {
			shipped[strings.TrimSpace(l)] = true
		}
	}
	_, section, _ := strings.Cut(read("README.md"), "\n### obgw in front of your own backend\n")
	section, _, _ = strings.Cut(section, "\n### ")
	blocks := regexp.MustCompile("(?s)```caddy\n(.*?)```").FindAllStringSubmatch(section, -1)
	if len(blocks) == 0 {
		t.Fatal("the README's section shows no Caddyfile lines")
	}
	var shown []string
	for _, b := range blocks {
		for _, l := range strings.Split(b[1], "\n") {
			l = strings.TrimSpace(l)
			if l == "" || l == "…" || strings.HasPrefix(l, "#") {
				continue
			}
			shown = append(shown, l)
			if !shipped[l] {
				t.Errorf("the README shows %q, which the Caddyfile and policies/backend-upstream.caddy do not have", l)
			}
		}
	}
	for _, want := range []string{"obgw_context_signing asymmetric", "obgw_context_jwks {", "context_signing_key_file {$OBGW_CONTEXT_SIGNING_KEY_FILE}"} {
		if !strings.Contains(strings.Join(shown, "\n"), want) {
			t.Errorf("the README does not show %q", want)
		}
	}
}
