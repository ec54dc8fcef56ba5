package gateway

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestCheckDate checks the window in both directions and that the refusal
// names the configured skew, not a fixed one.
func TestCheckDate(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		date     string
		skew     time.Duration
		wantText string // "" means accepted
	}{
		{now.Format(http.TimeFormat), time.Minute, ""},
		{now.Add(-time.Minute).Format(http.TimeFormat), time.Minute, ""},
		{now.Add(time.Minute).Format(http.TimeFormat), time.Minute, ""},
		{now.Add(-61 * time.Second).Format(http.TimeFormat), time.Minute, "more than 60 seconds"},
		{now.Add(61 * time.Second).Format(http.TimeFormat), time.Minute, "more than 60 seconds"},
		{now.Add(-40 * time.Second).Format(http.TimeFormat), 30 * time.Second, "more than 30 seconds"},
		{now.Add(-4 * time.Minute).Format(http.TimeFormat), 5 * time.Minute, ""},
		{now.Add(-6 * time.Minute).Format(http.TimeFormat), 5 * time.Minute, "more than 300 seconds"},
		{"", time.Minute, "missing"},
		{"2026-11-22T10:00:00Z", time.Minute, "not an IMF-fixdate"},
	}
	for _, tc := range cases {
		h := http.Header{}
		if tc.date != "" {
			h.Set("Date", tc.date)
		}
		e := checkDate(h, now, tc.skew)
		switch {
		case tc.wantText == "" && e != nil:
			t.Errorf("%q within %v: refused: %s", tc.date, tc.skew, e.Text)
		case tc.wantText != "" && (e == nil || e.Code != "TIMESTAMP_INVALID" || e.Path != "Date" || !strings.Contains(e.Text, tc.wantText)):
			t.Errorf("%q within %v: %+v; want TIMESTAMP_INVALID on Date saying %q", tc.date, tc.skew, e, tc.wantText)
		}
	}
}
