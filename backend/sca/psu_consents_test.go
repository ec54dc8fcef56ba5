package sca

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestGuessKey: the PSU page's guesses are counted per IPv4 address and
// per IPv6 /64 (one subscriber's), whatever form the remote address has.
func TestGuessKey(t *testing.T) {
	key := func(remote string) string {
		r := httptest.NewRequest(http.MethodPost, PSUBase, nil)
		r.RemoteAddr = remote
		return guessKey(r)
	}
	for remote, want := range map[string]string{
		"192.0.2.1:5044":           "psu:192.0.2.1",
		"[::ffff:192.0.2.1]:5044":  "psu:192.0.2.1",
		"[2001:db8::1]:443":        "psu:2001:db8::/64",
		"[2001:db8::ffff:1]:40000": "psu:2001:db8::/64",
		"[2001:db8:0:1::1]:443":    "psu:2001:db8:0:1::/64",
	} {
		if got := key(remote); got != want {
			t.Errorf("%s: %s, want %s", remote, got, want)
		}
	}
}
