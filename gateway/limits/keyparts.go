package limits

import (
	"strconv"

	"github.com/obgw/obgw/gateway/hygiene"
)

// MaxResourceIDBytes bounds the resource id part of a key. Resource ids are
// opaque ("enc!!" and 24 characters of URL-safe base64 today, 29 bytes).
const MaxResourceIDBytes = 128

// KeyPartError is a key part CheckKeyParts refuses. Part names it as the
// client sent it: "PSU-ID", or "(request-target)" for the resource id of
// the path. Text says what is wrong without echoing the value.
type KeyPartError struct {
	Part string
	Text string
}

func (e *KeyPartError) Error() string { return e.Part + ": " + e.Text }

// CheckKeyParts checks the parts of a key that come from the client before
// anything is counted, so that a key, kept for a whole window in memory or
// Redis, never holds more than a few dozen bytes of the client's choosing:
// resourceID is 1 to MaxResourceIDBytes bytes of A-Z a-z 0-9 ! _ = . -
// (every id the backend issues is of that form), and psuID is a UUID in
// 8-4-4-4-12 hex form, or empty (a PSU-not-present call may name no PSU;
// the backend then answers it without data).
func CheckKeyParts(psuID, resourceID string) error {
	if psuID != "" && !hygiene.IsUUID(psuID) {
		return &KeyPartError{Part: "PSU-ID", Text: "not a UUID; send the PSU-ID the bank's redirect gave, 8-4-4-4-12 hex digits"}
	}
	switch {
	case resourceID == "":
		return &KeyPartError{Part: "(request-target)", Text: "the path names no resource id"}
	case len(resourceID) > MaxResourceIDBytes:
		return &KeyPartError{Part: "(request-target)", Text: "the resource id in the path is " + strconv.Itoa(len(resourceID)) + " bytes, more than the " + strconv.Itoa(MaxResourceIDBytes) + " allowed"}
	}
	for i := 0; i < len(resourceID); i++ {
		if !isIDByte(resourceID[i]) {
			return &KeyPartError{Part: "(request-target)", Text: "the resource id in the path may hold only A-Z a-z 0-9 ! _ = . - (byte " + strconv.Itoa(i) + " is not one of them)"}
		}
	}
	return nil
}

func isIDByte(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	case c == '!', c == '_', c == '=', c == '.', c == '-':
		return true
	}
	return false
}
