package payments

import (
	"testing"
	"time"
)

func TestToday(t *testing.T) {
	for _, tc := range []struct {
		now  time.Time
		want string
	}{
		{time.Date(2026, 11, 21, 22, 59, 59, 0, time.UTC), "2026-11-21"}, // 23:59:59 CET
		{time.Date(2026, 11, 21, 23, 0, 0, 0, time.UTC), "2026-11-22"},   // midnight CET
		{time.Date(2026, 6, 30, 21, 59, 0, 0, time.UTC), "2026-06-30"},   // 23:59 CEST
		{time.Date(2026, 6, 30, 22, 0, 0, 0, time.UTC), "2026-07-01"},    // midnight CEST
		{time.Date(2026, 3, 29, 0, 59, 0, 0, time.UTC), "2026-03-29"},    // last Sunday of March, before the switch
		{time.Date(2026, 12, 31, 23, 30, 0, 0, time.UTC), "2027-01-01"},
		{time.Date(2026, 11, 21, 23, 30, 0, 0, time.FixedZone("", -5*3600)), "2026-11-22"}, // zone of now does not matter
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

func TestIsCivilDate(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"2026-11-21", true}, {"2028-02-29", true}, {"2027-02-29", false}, {"2026-13-01", false},
		{"2026-00-10", false}, {"2026-01-00", false}, {"2026-1-01", false}, {"2026/01/01", false}, {"20260101", false},
	} {
		if got := isCivilDate(tc.s); got != tc.want {
			t.Errorf("isCivilDate(%q) = %v", tc.s, got)
		}
	}
}

// oneYearAfterString is oneYearAfter as a string.
func oneYearAfterString(today string) string {
	a := oneYearAfter(today)
	return string(a[:])
}
