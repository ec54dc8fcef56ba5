package mockdata

import (
	"testing"
	"time"
	_ "time/tzdata" // the comparison below must run on hosts without one
)

func TestParseDate(t *testing.T) {
	tests := []struct {
		in      string
		civil   string
		hasTime bool
		rule    string
	}{
		{"2026-11-21", "2026-11-21", false, ""},
		{"2024-02-29", "2024-02-29", false, ""},
		{"2026-11-21T10:00:00+01:00", "2026-11-21", true, ""},
		{"2026-11-21T10:00:00Z", "2026-11-21", true, ""},
		{"2026-11-21T23:59:59.999-11:00", "2026-11-21", true, ""},
		{"2026-11-21T10:00:00", "", false, ruleNoOffset},
		{"2026-11-21T10:00", "", false, ruleDate},
		{"2025-02-29", "", false, ruleDate},
		{"2026-13-01", "", false, ruleDate},
		{"2026-00-10", "", false, ruleDate},
		{"2026-01-00", "", false, ruleDate},
		{"2026-1-1", "", false, ruleDate},
		{"26-11-21", "", false, ruleDate},
		{"2026/11/21", "", false, ruleDate},
		{"2026-11-21Z", "", false, ruleDate},
		{"2026-11-21t10:00:00Z", "", false, ruleDate},
		{"2026-11-21T25:00:00Z", "", false, ruleDate},
		{"2026-11-21T10:00:00+25:00", "", false, ruleDate},
		{"", "", false, ruleDate},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			d, rule := parseDate(tc.in)
			if rule != tc.rule || d.civil != tc.civil || d.hasTime != tc.hasTime {
				t.Errorf("parseDate(%q) = %+v, %q; want civil %q hasTime %v rule %q", tc.in, d, rule, tc.civil, tc.hasTime, tc.rule)
			}
		})
	}
}

func TestParseDateTime(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
		rule string
	}{
		{"2026-01-01T10:00:00Z", time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), ""},
		{"2026-01-01T10:00:00+01:00", time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC), ""},
		{"2026-01-01", time.Time{}, ruleDateTime},
		{"2026-01-01T10:00:00", time.Time{}, ruleNoOffset},
		{"yesterday", time.Time{}, ruleDateTime},
	}
	for _, tc := range tests {
		got, rule := parseDateTime(tc.in)
		if rule != tc.rule || !got.Equal(tc.want) {
			t.Errorf("parseDateTime(%q) = %v, %q; want %v, %q", tc.in, got, rule, tc.want, tc.rule)
		}
	}
}

// TestBankToday checks the Norwegian date across midnight and both
// daylight saving switches of 2026 (29 March and 25 October, 01:00 UTC).
func TestBankToday(t *testing.T) {
	tests := []struct {
		now  time.Time
		want string
	}{
		{time.Date(2026, 11, 21, 22, 59, 0, 0, time.UTC), "2026-11-21"},
		{time.Date(2026, 11, 21, 23, 0, 0, 0, time.UTC), "2026-11-22"},
		{time.Date(2026, 7, 1, 21, 59, 0, 0, time.UTC), "2026-07-01"},
		{time.Date(2026, 7, 1, 22, 0, 0, 0, time.UTC), "2026-07-02"},
		{time.Date(2026, 3, 28, 22, 59, 0, 0, time.UTC), "2026-03-28"},
		{time.Date(2026, 3, 28, 23, 0, 0, 0, time.UTC), "2026-03-29"},
		{time.Date(2026, 3, 29, 0, 59, 0, 0, time.UTC), "2026-03-29"},
		{time.Date(2026, 10, 24, 22, 0, 0, 0, time.UTC), "2026-10-25"},
		{time.Date(2026, 10, 25, 22, 30, 0, 0, time.UTC), "2026-10-25"},
		{time.Date(2026, 10, 25, 23, 0, 0, 0, time.UTC), "2026-10-26"},
		{time.Date(2026, 12, 31, 23, 30, 0, 0, time.UTC), "2027-01-01"},
		{time.Date(2026, 11, 22, 0, 30, 0, 0, time.FixedZone("UTC+1", 3600)), "2026-11-22"},
	}
	for _, tc := range tests {
		if got := bankToday(tc.now); got != tc.want {
			t.Errorf("bankToday(%v) = %s, want %s", tc.now, got, tc.want)
		}
	}
}

// TestBankTodayMatchesTZDatabase compares the EU rule with the time zone
// database, every half hour over two years.
func TestBankTodayMatchesTZDatabase(t *testing.T) {
	oslo, err := time.LoadLocation("Europe/Oslo")
	if err != nil {
		t.Fatal(err)
	}
	for at := time.Date(2026, 1, 1, 0, 15, 0, 0, time.UTC); at.Year() < 2028; at = at.Add(30 * time.Minute) {
		if got, want := bankToday(at), at.In(oslo).Format(time.DateOnly); got != want {
			t.Fatalf("bankToday(%v) = %s, tz database says %s", at, got, want)
		}
	}
}
