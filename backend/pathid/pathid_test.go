package pathid

import (
	"strings"
	"testing"
)

func TestPlausiblePath(t *testing.T) {
	for _, tt := range []struct {
		path string
		want bool
	}{
		{"/v1/accounts/enc!!AbC-_0123456789abcdefghij/balances", true},
		{"/v1/accounts/konto-%C3%B8", true},
		{"/", true},
		{"", true},
		{"/v1/" + strings.Repeat("a", 128), true},
		{"/v1/" + strings.Repeat("a", 129), false},
		{"/v1/" + strings.Repeat("%61", 129), false},
		{"/v1/%00", false},
		{"/v1/%ff", false},
		{"/v1/a%zz", false},
		{"/v1/%C2%9F", false},
		{"/v1/%C2%A0", true},
	} {
		if got := PlausiblePath(tt.path); got != tt.want {
			t.Errorf("PlausiblePath(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}
