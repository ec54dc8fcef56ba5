package payments

import (
	"testing"
	"time"
)

// TestToday checks that Today is the bank's date at midnight CET and
// CEST; civildate tests the rule across the year.
func TestToday(t *testing.T) {
	for _, tc := range []struct {
		now  time.Time
		want string
	}{
		{time.Date(2026, 11, 21, 22, 59, 59, 0, time.UTC), "2026-11-21"}, // 23:59:59 CET
		{time.Date(2026, 11, 21, 23, 0, 0, 0, time.UTC), "2026-11-22"},   // midnight CET
		{time.Date(2026, 6, 30, 21, 59, 0, 0, time.UTC), "2026-06-30"},   // 23:59 CEST
		{time.Date(2026, 6, 30, 22, 0, 0, 0, time.UTC), "2026-07-01"},    // midnight CEST
	} {
		if got := Today(tc.now); got != tc.want {
			t.Errorf("Today(%v) = %s, want %s", tc.now, got, tc.want)
		}
	}
}

func TestOneYearAfter(t *testing.T) {
	for _, tc := range []struct{ today, want string }{
		{"2026-11-21", "2027-11-21"},
		{"2028-02-29", "2029-03-01"},
		{"2027-02-28", "2028-02-28"},
		{"2099-12-31", "2100-12-31"},
		{"9999-06-01", "9999-12-31"},
	} {
		if got := oneYearAfterString(tc.today); got != tc.want {
			t.Errorf("oneYearAfter(%s) = %s, want %s", tc.today, got, tc.want)
		}
	}
}

// oneYearAfterString is oneYearAfter as a string.
func oneYearAfterString(today string) string {
	a := oneYearAfter(today)
	return string(a[:])
}
