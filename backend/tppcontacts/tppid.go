package tppcontacts

import "strings"

// psdPrefix starts every PSD2 organizationIdentifier (ETSI TS 119 495).
const psdPrefix = "PSD"

// maxTPPIDBytes bounds a tppId (Berlin Group Max70Text).
const maxTPPIDBytes = 70

// RuleTPPID is the rule text of a tppId that is no organizationIdentifier.
const RuleTPPID = "must be your organizationIdentifier, such as PSDNO-FSA-987654321, or the same without the PSD prefix (NO-FSA-987654321)"

// ValidTPPID reports whether id has the form of a PSD2 organizationIdentifier,
// PSD<CC>-<NCA>-<authorisation number>, with or without the PSD prefix:
// two upper-case letters, 2 to 8 upper-case letters, and a number of
// printable ASCII characters without spaces, at most 70 in all.
func ValidTPPID(id string) bool {
	if len(id) > maxTPPIDBytes {
		return false
	}
	rest := strings.TrimPrefix(id, psdPrefix)
	if len(rest) < 2+1+2+1+1 || !isUpper(rest[0]) || !isUpper(rest[1]) || rest[2] != '-' {
		return false
	}
	n := 3
	for n < len(rest) && isUpper(rest[n]) {
		n++
	}
	if letters := n - 3; letters < 2 || letters > 8 || n+1 >= len(rest) || rest[n] != '-' {
		return false
	}
	for i := n + 1; i < len(rest); i++ {
		if rest[i] <= ' ' || rest[i] > '~' {
			return false
		}
	}
	return true
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// Match is what a tppId says about the TPP it names.
type Match uint8

const (
	// SameTPP: the tppId names the verified TPP (or none was sent).
	SameTPP Match = iota
	// OtherTPP: the tppId is an organizationIdentifier of another TPP.
	OtherTPP
	// NotTPPID: the tppId has not the form of an organizationIdentifier.
	NotTPPID
)

// MatchTPPID tells whether id, a tppId as sent ("" when absent), names
// verified, the organizationIdentifier the gateway verified: the PSD
// prefix may be left out of either, and the rest must be equal.
func MatchTPPID(id, verified string) Match {
	switch {
	case id == "" || strings.TrimPrefix(id, psdPrefix) == strings.TrimPrefix(verified, psdPrefix):
		return SameTPP
	case ValidTPPID(id):
		return OtherTPP
	}
	return NotTPPID
}
