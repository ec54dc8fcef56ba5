package mockdata

import (
	"testing"
	"time"
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
