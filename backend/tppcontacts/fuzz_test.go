package tppcontacts

import (
	"net/mail"
	"strings"
	"testing"

	"github.com/obgw/obgw/backend/strictjson/strictjsontest"
)

// FuzzParseRegistration holds the parser to its documented rules: an
// accepted body has 1 to MaxAddresses distinct plain ASCII addresses that
// net/mail parses back to themselves, and a well-formed tppId; a refused
// one has well-formed errors that quote no address.
func FuzzParseRegistration(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		reg, errs := ParseRegistration(body)
		strictjsontest.CheckFieldErrors(t, errs)
		if (len(errs) > 0) == (len(reg.EmailAddresses) > 0) {
			t.Fatalf("accepted %d addresses with %d errors", len(reg.EmailAddresses), len(errs))
		}
		if errs != nil {
			if reg.TPPID != "" {
				t.Fatalf("refused body returned tppId")
			}
			return
		}
		if len(reg.EmailAddresses) > MaxAddresses {
			t.Fatalf("accepted %d addresses", len(reg.EmailAddresses))
		}
		if reg.TPPID != "" && !ValidTPPID(reg.TPPID) {
			t.Fatalf("accepted tppId %q", reg.TPPID)
		}
		seen := map[string]bool{}
		for _, a := range reg.EmailAddresses {
			at := strings.LastIndexByte(a, '@')
			parsed, err := mail.ParseAddress(a)
			if len(a) > MaxAddressBytes || at < 1 || at > maxLocalBytes || err != nil || parsed.Address != a || parsed.Name != "" ||
				!validDomain(a[at+1:]) {
				t.Fatalf("accepted address %q", a)
			}
			for i := 0; i < len(a); i++ {
				if a[i] <= ' ' || a[i] > '~' {
					t.Fatalf("accepted address %q with byte %#x", a, a[i])
				}
			}
			key := a[:at] + "@" + strings.ToLower(a[at+1:])
			if seen[key] {
				t.Fatalf("accepted a repeated address %q", a)
			}
			seen[key] = true
		}
	})
}
