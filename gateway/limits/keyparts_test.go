package limits

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"regexp"
	"strings"
	"testing"
)

func TestCheckKeyParts(t *testing.T) {
	var raw [18]byte
	rand.Read(raw[:])
	issued := "enc!!" + base64.RawURLEncoding.EncodeToString(raw[:]) // as backend/store's newID
	const psu = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
	tests := []struct {
		name, psuID, resource string
		wantPart, wantText    string // "" means valid
	}{
		{name: "issued id", psuID: psu, resource: issued},
		{name: "every allowed byte", psuID: psu, resource: "AZaz09!_=.-"},
		{name: "upper-case UUID", psuID: strings.ToUpper(psu), resource: issued},
		{name: "no PSU-ID", resource: issued},
		{name: "128 bytes", psuID: psu, resource: strings.Repeat("a", 128)},
		{name: "129 bytes", psuID: psu, resource: strings.Repeat("a", 129), wantPart: "(request-target)", wantText: "129 bytes, more than the 128 allowed"},
		{name: "4 KB", psuID: psu, resource: strings.Repeat("a", 4<<10), wantPart: "(request-target)", wantText: "more than the 128 allowed"},
		{name: "empty resource", psuID: psu, wantPart: "(request-target)", wantText: "no resource id"},
		{name: "slash", psuID: psu, resource: "a/b", wantPart: "(request-target)", wantText: "byte 1"},
		{name: "NUL", psuID: psu, resource: "enc!!\x00", wantPart: "(request-target)", wantText: "byte 5"},
		{name: "invalid UTF-8", psuID: psu, resource: "\xff", wantPart: "(request-target)", wantText: "byte 0"},
		{name: "non-ASCII", psuID: psu, resource: "konto-ø", wantPart: "(request-target)", wantText: "may hold only"},
		{name: "space", psuID: psu, resource: "a b", wantPart: "(request-target)", wantText: "may hold only"},
		{name: "PSU-ID not a UUID", psuID: "kari", resource: issued, wantPart: "PSU-ID", wantText: "not a UUID"},
		{name: "PSU-ID 4 KB", psuID: strings.Repeat("a", 4<<10), resource: issued, wantPart: "PSU-ID", wantText: "not a UUID"},
		{name: "PSU-ID without hyphens", psuID: strings.ReplaceAll(psu, "-", "") + "abcd", resource: issued, wantPart: "PSU-ID", wantText: "not a UUID"},
	}
	for _, tt := range tests {
		err := CheckKeyParts(tt.psuID, tt.resource)
		if tt.wantPart == "" {
			if err != nil {
				t.Errorf("%s: CheckKeyParts() = %v, want nil", tt.name, err)
			}
			continue
		}
		var ke *KeyPartError
		if !errors.As(err, &ke) || ke.Part != tt.wantPart || !strings.Contains(ke.Text, tt.wantText) {
			t.Errorf("%s: CheckKeyParts() = %v, want %s and %q", tt.name, err, tt.wantPart, tt.wantText)
		}
	}
}

func TestCheckKeyPartsDoesNotAllocateOnValidInput(t *testing.T) {
	if allocs := testing.AllocsPerRun(100, func() {
		_ = CheckKeyParts("3f2504e0-4f89-41d3-9a0c-0305e82c3301", "enc!!Zm9vYmFyYmF6cXV4cXV1eA")
	}); allocs != 0 {
		t.Errorf("CheckKeyParts: %v allocations, want 0", allocs)
	}
}

var (
	resourceIDPattern = regexp.MustCompile(`^[A-Za-z0-9!_=.-]{1,128}$`)
	uuidPattern       = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
)

// FuzzCheckKeyParts compares CheckKeyParts with regular expressions.
func FuzzCheckKeyParts(f *testing.F) {
	f.Add("3f2504e0-4f89-41d3-9a0c-0305e82c3301", "enc!!Zm9vYmFyYmF6cXV4cXV1eA")
	f.Add("", "a")
	f.Add("x", "a/b")
	f.Fuzz(func(t *testing.T, psuID, resource string) {
		want := (psuID == "" || uuidPattern.MatchString(psuID)) && resourceIDPattern.MatchString(resource)
		if got := CheckKeyParts(psuID, resource) == nil; got != want {
			t.Errorf("CheckKeyParts(%q, %q) ok=%v, want %v", psuID, resource, got, want)
		}
	})
}
