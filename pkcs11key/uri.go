package pkcs11key

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/stefanberger/go-pkcs11uri"
)

// IsURI reports whether s names a PKCS #11 key rather than a file.
func IsURI(s string) bool { return strings.HasPrefix(s, "pkcs11:") }

// Location is a key in a token, as a URI names it.
type Location struct {
	// Module is the PKCS #11 library's path.
	Module string
	// Token, Serial and Slot choose the token: exactly one is set.
	Token, Serial string
	Slot          *int
	// Label and ID choose the key pair (CKA_LABEL, CKA_ID); one at least.
	Label string
	ID    []byte

	pinSource string
}

// Parse reads a PKCS #11 URI (RFC 7512). It needs module-path (or
// module-name and module-path naming a directory), one of token, serial
// and slot-id, object or id, and pin-source; it refuses pin-value.
func Parse(s string) (*Location, error) {
	u := pkcs11uri.New()
	if err := u.Parse(s); err != nil {
		return nil, fmt.Errorf("pkcs11: %v", err)
	}
	_, inQuery := u.GetQueryAttribute("pin-value", false)
	if _, inPath := u.GetPathAttribute("pin-value", false); inQuery || inPath {
		return nil, errors.New("pkcs11: pin-value puts the PIN in the configuration, which the admin API serves; " +
			"put it in a file readable by obgw alone and name it with pin-source=file:/path")
	}
	pinSource, _ := u.GetQueryAttribute("pin-source", false)
	if pinSource == "" {
		return nil, errors.New("pkcs11: pin-source is missing: name the file holding the token's user PIN (pin-source=file:/path)")
	}
	u.SetAllowAnyModule(true)
	module, err := u.GetModule()
	if err != nil {
		return nil, fmt.Errorf("pkcs11: the module (module-path): %v", err)
	}
	l := &Location{Module: module, pinSource: pinSource}
	l.Token, _ = u.GetPathAttribute("token", false)
	l.Serial, _ = u.GetPathAttribute("serial", false)
	chosen := 0
	for _, v := range []string{l.Token, l.Serial} {
		if v != "" {
			chosen++
		}
	}
	if v, ok := u.GetPathAttribute("slot-id", false); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("pkcs11: slot-id %q is not a slot number", v)
		}
		l.Slot = &n
		chosen++
	}
	if chosen != 1 {
		return nil, errors.New("pkcs11: name the token by exactly one of token (its label), serial and slot-id")
	}
	l.Label, _ = u.GetPathAttribute("object", false)
	if id, ok := u.GetPathAttribute("id", false); ok {
		// go-pkcs11uri has percent-decoded it: the raw CKA_ID bytes.
		l.ID = []byte(id)
	}
	if l.Label == "" && len(l.ID) == 0 {
		return nil, errors.New("pkcs11: name the key by object (its label) or id")
	}
	return l, nil
}

// pin reads the PIN from pin-source; a final line break is not part of it.
func (l *Location) pin() (string, error) {
	u := pkcs11uri.New()
	if err := u.AddQueryAttribute("pin-source", l.pinSource); err != nil {
		return "", err
	}
	pin, err := u.GetPIN()
	if err != nil {
		return "", fmt.Errorf("pkcs11: pin-source: %v", err)
	}
	return strings.TrimSuffix(strings.TrimSuffix(pin, "\n"), "\r"), nil
}

// String names the key for logs: module, token and key, never the PIN.
func (l *Location) String() string {
	var b strings.Builder
	b.WriteString("pkcs11 ")
	switch {
	case l.Token != "":
		b.WriteString("token=" + l.Token)
	case l.Serial != "":
		b.WriteString("serial=" + l.Serial)
	default:
		b.WriteString("slot-id=" + strconv.Itoa(*l.Slot))
	}
	if l.Label != "" {
		b.WriteString(" object=" + l.Label)
	}
	if len(l.ID) > 0 {
		b.WriteString(" id=" + hex.EncodeToString(l.ID))
	}
	b.WriteString(" module=" + l.Module)
	return b.String()
}
