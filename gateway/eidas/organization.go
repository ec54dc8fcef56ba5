package eidas

import (
	"crypto/x509/pkix"
	"encoding/asn1"
)

// oidOrganizationIdentifier is X.520 organizationIdentifier. Go's pkix.Name
// has no field for it, so it is read from Names.
var oidOrganizationIdentifier = asn1.ObjectIdentifier{2, 5, 4, 97}

// OrganizationIdentifier returns the subject's organizationIdentifier
// (2.5.4.97), e.g. "PSDNO-FSA-987654321". It reports false when the
// attribute is absent, not a string, empty, or present more than once, since
// an ambiguous identity must not be guessed.
func OrganizationIdentifier(subject pkix.Name) (string, bool) {
	var id string
	found := false
	for _, atv := range subject.Names {
		if !atv.Type.Equal(oidOrganizationIdentifier) {
			continue
		}
		s, ok := atv.Value.(string)
		if !ok || found {
			return "", false
		}
		id, found = s, true
	}
	return id, found && id != ""
}

// ParseOrganizationIdentifier splits a PSD2 organizationIdentifier of the
// form PSD<CC>-<NCA>-<authorisation number> (ETSI TS 119 495 GEN-5.2.1-3,
// `^PSD([A-Z]{2})-([A-Z]{2,8})-(.+)$`) into the NCA id "<CC>-<NCA>" and the
// number. The number must be non-empty and free of control characters. It
// does not allocate.
func ParseOrganizationIdentifier(id string) (ncaID, number string, ok bool) {
	const prefix = "PSD"
	if len(id) < len(prefix)+2+1+2+1+1 || id[:len(prefix)] != prefix {
		return "", "", false
	}
	rest := id[len(prefix):]
	if !isUpper(rest[0]) || !isUpper(rest[1]) || rest[2] != '-' {
		return "", "", false
	}
	n := 3
	for n < len(rest) && isUpper(rest[n]) {
		n++
	}
	if letters := n - 3; letters < 2 || letters > 8 || n >= len(rest) || rest[n] != '-' {
		return "", "", false
	}
	number = rest[n+1:]
	if number == "" {
		return "", "", false
	}
	for _, r := range number {
		if r < 0x20 || (r >= 0x7f && r < 0xa0) {
			return "", "", false
		}
	}
	return rest[:n], number, true
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
