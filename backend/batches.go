package backend

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/obgw/obgw/backend/civildate"
)

// DefaultBatchTimes are the sandbox's five daily batch runs (Europe/Oslo).
var DefaultBatchTimes = []string{"06:00", "09:00", "12:00", "15:00", "18:00"}

// ParseBatchTimes checks "HH:MM" times of day.
func ParseBatchTimes(times []string) ([]time.Duration, error) {
	out := make([]time.Duration, 0, len(times))
	for _, t := range times {
		at, err := time.Parse("15:04", t)
		if err != nil {
			return nil, fmt.Errorf("batch time %q is not HH:MM", t)
		}
		out = append(out, time.Duration(at.Hour())*time.Hour+time.Duration(at.Minute())*time.Minute)
	}
	return out, nil
}

// nextRun returns the first of the times of day (in the bank's zone) after now.
func nextRun(now time.Time, times []time.Duration) time.Time {
	local := now.In(civildate.Oslo)
	midnight := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, civildate.Oslo)
	var best time.Time
	for day := 0; day < 2 && best.IsZero(); day++ {
		base := midnight.AddDate(0, 0, day)
		for _, t := range times {
			at := base.Add(t)
			if at.After(now) && (best.IsZero() || at.Before(best)) {
				best = at
			}
		}
	}
	return best
}

// RunBatches runs a batch run at each of the times of day, on the clock
// now, until ctx ends. server returns the backend to run it on (it may
// open the database the first time). Of several instances on one database,
// the one that leases a scheduled run (as holder) runs it; each payment
// would be executed once even if two ran.
func RunBatches(ctx context.Context, times []time.Duration, server func(context.Context) (*Server, error), log *slog.Logger, now func() time.Time, holder string) {
	if len(times) == 0 {
		return
	}
	for {
		at := now()
		next := nextRun(at, times)
		t := time.NewTimer(next.Sub(at))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		srv, err := server(ctx)
		if err != nil {
			log.Error("payment batch run: backend unavailable", "error", err)
			continue
		}
		// One instance runs each scheduled batch: the one that leases it.
		if ok, err := srv.cfg.Store.Lease(ctx, "batch "+next.UTC().Format(time.RFC3339), holder, now(), time.Hour); err != nil {
			log.Error("payment batch run: lease", "error", err)
			continue
		} else if !ok {
			continue // another instance runs this one
		}
		settled, noFunds, err := srv.pis.BatchRun(ctx, "")
		if err != nil {
			log.Error("payment batch run failed", "error", err)
			continue
		}
		log.Info("payment batch run", "settled", settled, "insufficient_funds", noFunds)
	}
}
