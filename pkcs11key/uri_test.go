package pkcs11key

import (
	"strings"
	"testing"

	"github.com/stefanberger/go-pkcs11uri"
)

const module = "/usr/lib/softhsm/libsofthsm2.so"

// TestParse: what a URI must name, and what it must not hold.
func TestParse(t *testing.T) {
	for _, tt := range []struct {
		uri, err string
	}{
		{"pkcs11:token=obgw;object=seal?module-path=" + module + "&pin-source=file:/etc/obgw/pin", ""},
		{"pkcs11:serial=abc;id=%01%02?module-path=" + module + "&pin-source=file:/etc/obgw/pin", ""},
		{"pkcs11:slot-id=3;object=seal?module-path=" + module + "&pin-source=/etc/obgw/pin", ""},
		{"file:/etc/obgw/key.pem", "prefix"},
		{"pkcs11:token=obgw;object=seal?module-path=" + module + "&pin-value=1234", "pin-value"},
		{"pkcs11:token=obgw;object=seal?module-path=" + module, "pin-source is missing"},
		{"pkcs11:object=seal?module-path=" + module + "&pin-source=file:/p", "exactly one of token"},
		{"pkcs11:token=a;serial=b;object=seal?module-path=" + module + "&pin-source=file:/p", "exactly one of token"},
		{"pkcs11:token=obgw?module-path=" + module + "&pin-source=file:/p", "object (its label) or id"},
		{"pkcs11:slot-id=x;object=seal?module-path=" + module + "&pin-source=file:/p", "slot-id"},
		{"pkcs11:token=obgw;object=seal?module-path=/nonexistent/lib.so&pin-source=file:/p", "module"},
		{"pkcs11:token=obgw;object=seal?module-path=relative.so&pin-source=file:/p", "absolute"},
	} {
		l, err := Parse(tt.uri)
		if tt.err == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.uri, err)
			} else if l.Module != module {
				t.Errorf("%s: module %q", tt.uri, l.Module)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: %v, want an error saying %q", tt.uri, err, tt.err)
		}
		if err != nil && strings.Contains(err.Error(), "1234") {
			t.Errorf("%s: the error shows the PIN: %v", tt.uri, err)
		}
	}
	l, err := Parse("pkcs11:serial=abc;id=%01%02?module-path=" + module + "&pin-source=file:/etc/obgw/pin")
	if err != nil || string(l.ID) != "\x01\x02" || l.String() != "pkcs11 serial=abc id=0102 module="+module {
		t.Errorf("id: %+v %v %s", l, err, l)
	}
}

// FuzzParse: any string either parses into a location that names one
// token and a key, or is refused; never a panic, and a PIN given as
// pin-value is never accepted.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"pkcs11:token=obgw;object=seal?module-path=" + module + "&pin-source=file:/etc/obgw/pin",
		"pkcs11:slot-id=1;id=%00?module-path=" + module + "&pin-source=/p",
		"pkcs11:token=%zz;object=a?module-path=" + module + "&pin-value=1",
		"pkcs11:",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := Parse(s)
		if err != nil {
			return
		}
		u := pkcs11uri.New()
		if u.Parse(s) != nil {
			t.Fatalf("%q: accepted, and go-pkcs11uri refuses it", s)
		}
		_, inQuery := u.GetQueryAttribute("pin-value", false)
		_, inPath := u.GetPathAttribute("pin-value", false)
		if inQuery || inPath {
			t.Fatalf("%q: accepted with pin-value", s)
		}
		selectors := 0
		for _, v := range []bool{l.Token != "", l.Serial != "", l.Slot != nil} {
			if v {
				selectors++
			}
		}
		if selectors != 1 || (l.Label == "" && len(l.ID) == 0) || l.pinSource == "" {
			t.Fatalf("%q: parsed to %+v", s, l)
		}
		_ = l.String()
	})
}
