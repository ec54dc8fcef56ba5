package mockdata

import "testing"

func TestDecimalFormats(t *testing.T) {
	tests := []struct {
		in                string
		decimal, positive bool
	}{
		{"0", true, false},
		{"0.000", true, false},
		{"1", true, true},
		{"0.0951", true, true},
		{"10.4567", true, true},
		{"007.5", true, true},
		{"123456789012345678901234", true, true},
		{"1234567890123456789012345", false, false},
		{"", false, false},
		{".5", false, false},
		{"5.", false, false},
		{"1.2.3", false, false},
		{"-1", false, false},
		{"+1", false, false},
		{"1e3", false, false},
		{"1,5", false, false},
		{" 1", false, false},
		{"½", false, false},
	}
	for _, tc := range tests {
		if got := validDecimal(tc.in); got != tc.decimal {
			t.Errorf("validDecimal(%q) = %v, want %v", tc.in, got, tc.decimal)
		}
		if got := validPositiveDecimal(tc.in); got != tc.positive {
			t.Errorf("validPositiveDecimal(%q) = %v, want %v", tc.in, got, tc.positive)
		}
	}
}
