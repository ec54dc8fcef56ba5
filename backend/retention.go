package backend

import (
	"context"
	"log/slog"
	"time"

	"github.com/obgw/obgw/backend/sca"
	"github.com/obgw/obgw/backend/store"
)

// SweepInterval is how often expired SCA flows, sessions and consents are
// deleted (store.DefaultRetention says which).
const SweepInterval = 10 * time.Minute

// RunSweeps deletes the rows past their retention every SweepInterval, on
// the clock now, until ctx ends; of several instances on one database,
// the one that leases the sweep (as holder) runs it, and tells observe
// (when not nil) what it deleted.
func RunSweeps(ctx context.Context, server func(context.Context) (*Server, error), log *slog.Logger, now func() time.Time, holder string, observe func(store.Swept)) {
	t := time.NewTicker(SweepInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		srv, err := server(ctx)
		if err != nil {
			log.Error("retention sweep: backend unavailable", "error", err)
			continue
		}
		n, ran, err := srv.Sweep(ctx, now(), holder)
		if err != nil {
			log.Error("retention sweep failed", "error", err)
		}
		if ran && observe != nil {
			observe(n)
		}
	}
}

// Sweep deletes the SCA flows, sessions, consents, sealing keys and guess limits past
// their retention if holder gets the sweep's lease; it reports what it
// deleted and whether it swept.
func (s *Server) Sweep(ctx context.Context, now time.Time, holder string) (store.Swept, bool, error) {
	ok, err := s.cfg.Store.Lease(ctx, "sweep", holder, now, SweepInterval/2)
	if err != nil || !ok {
		return store.Swept{}, false, err
	}
	r := store.DefaultRetention
	r.Abandoned = sca.FunnelPurposes // the SCA funnel's abandoned flows
	n, err := s.cfg.Store.Sweep(ctx, now, r)
	if err != nil {
		return n, true, err
	}
	s.log.Info("retention sweep", slog.Int64("flows", n.Flows), slog.Int64("sessions", n.Sessions),
		slog.Int64("consents", n.Consents), slog.Int64("consents_expired", n.Expired), slog.Int64("sealing_keys", n.SealingKeys), slog.Int64("allowances", n.Allowances))
	return n, true, nil
}
