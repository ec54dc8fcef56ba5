package backend

import (
	"testing"
	"time"

	"github.com/obgw/obgw/backend/civildate"
)

func TestNextBatchRun(t *testing.T) {
	times, err := ParseBatchTimes(DefaultBatchTimes)
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) time.Time {
		v, err := time.ParseInLocation("2006-01-02 15:04", s, civildate.Oslo)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for now, want := range map[string]string{
		"2026-11-22 05:00": "2026-11-22 06:00",
		"2026-11-22 06:00": "2026-11-22 09:00",
		"2026-11-22 17:59": "2026-11-22 18:00",
		"2026-11-22 18:30": "2026-11-23 06:00",
	} {
		if got := nextRun(at(now), times); !got.Equal(at(want)) {
			t.Errorf("after %s: %s, want %s", now, got.In(civildate.Oslo).Format("2006-01-02 15:04"), want)
		}
	}
	if _, err := ParseBatchTimes([]string{"25:00"}); err == nil {
		t.Fatal("25:00 accepted")
	}
}
