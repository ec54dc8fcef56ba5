package civildate

import (
	"testing"
	"time"
)

// TestToday checks the Norwegian date across midnight and both daylight
// saving switches of 2026 (29 March and 25 October, 01:00 UTC).
func TestToday(t *testing.T) {
	tests := []struct {
		now  time.Time
		want string
	}{
		{time.Date(2026, 11, 21, 22, 59, 0, 0, time.UTC), "2026-11-21"},
		{time.Date(2026, 11, 21, 22, 59, 59, 0, time.UTC), "2026-11-21"}, // 23:59:59 CET
		{time.Date(2026, 11, 21, 23, 0, 0, 0, time.UTC), "2026-11-22"},   // midnight CET
		{time.Date(2026, 7, 1, 21, 59, 0, 0, time.UTC), "2026-07-01"},
		{time.Date(2026, 7, 1, 22, 0, 0, 0, time.UTC), "2026-07-02"},
		{time.Date(2026, 6, 30, 21, 59, 0, 0, time.UTC), "2026-06-30"}, // 23:59 CEST
		{time.Date(2026, 6, 30, 22, 0, 0, 0, time.UTC), "2026-07-01"},  // midnight CEST
		{time.Date(2026, 3, 28, 22, 59, 0, 0, time.UTC), "2026-03-28"},
		{time.Date(2026, 3, 28, 23, 0, 0, 0, time.UTC), "2026-03-29"},
		{time.Date(2026, 3, 29, 0, 59, 0, 0, time.UTC), "2026-03-29"}, // last Sunday of March, before the switch
		{time.Date(2026, 10, 24, 22, 0, 0, 0, time.UTC), "2026-10-25"},
		{time.Date(2026, 10, 25, 22, 30, 0, 0, time.UTC), "2026-10-25"},
		{time.Date(2026, 10, 25, 23, 0, 0, 0, time.UTC), "2026-10-26"},
		{time.Date(2026, 12, 31, 23, 30, 0, 0, time.UTC), "2027-01-01"},
		{time.Date(2026, 11, 22, 0, 30, 0, 0, time.FixedZone("UTC+1", 3600)), "2026-11-22"},
		{time.Date(2026, 11, 21, 23, 30, 0, 0, time.FixedZone("", -5*3600)), "2026-11-22"}, // zone of now does not matter
	}
	for _, tc := range tests {
		if got := Today(tc.now); got != tc.want {
			t.Errorf("Today(%v) = %s, want %s", tc.now, got, tc.want)
		}
	}
}

// TestOsloOffsets: Oslo is CET in winter and CEST in summer, switching on
// the last Sundays of March and October at 01:00 UTC.
func TestOsloOffsets(t *testing.T) {
	for _, tc := range []struct {
		at     time.Time
		offset int
	}{
		{time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC), 3600},
		{time.Date(2026, 3, 29, 0, 59, 0, 0, time.UTC), 3600},
		{time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC), 7200},
		{time.Date(2026, 10, 25, 0, 59, 0, 0, time.UTC), 7200},
		{time.Date(2026, 10, 25, 1, 0, 0, 0, time.UTC), 3600},
	} {
		if _, off := tc.at.In(Oslo).Zone(); off != tc.offset {
			t.Errorf("%v in Oslo: offset %d, want %d", tc.at, off, tc.offset)
		}
	}
}

func TestValid(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"2026-11-21", true}, {"2028-02-29", true}, {"2024-02-29", true}, {"2000-02-29", true}, {"9999-12-31", true},
		{"2027-02-29", false}, {"1900-02-29", false}, {"2025-02-29", false}, {"2026-04-31", false},
		{"2026-13-01", false}, {"2026-00-10", false}, {"2026-01-00", false}, {"2026-1-01", false}, {"2026-1-1", false},
		{"2026/01/01", false}, {"20260101", false}, {"26-11-21", false}, {"2026-11-21T10:00:00Z", false},
		{"2026-11-2a", false}, {"", false},
	} {
		if got := Valid(tc.s); got != tc.want {
			t.Errorf("Valid(%q) = %v", tc.s, got)
		}
	}
}

func BenchmarkValid(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if !Valid("2026-11-21") {
			b.Fatal("refused")
		}
	}
}
