package caddymodule

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/gateway"
)

// metrics are the obgw app's Prometheus collectors, registered in the
// configuration's metrics registry on every config load (so a reload
// starts from the new configuration's registry, as Caddy's own do). Labels
// are bounded: check, decision, mode and error code; never a TPP, PSU or
// account.
type metrics struct {
	checks *prometheus.CounterVec
	// byCheck holds the counters of checks resolved once, so a request
	// costs no label hashing: [check][decision][mode].
	byCheck  [gateway.NumChecks][gateway.NumDecisions][2]prometheus.Counter
	rejects  *prometheus.CounterVec
	duration prometheus.Histogram
	// deleted counts the rows the retention sweep deleted, by kind.
	deleted *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		checks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "obgw", Name: "check_total",
			Help: "Decisions of the TPP verification checks, by check, decision and mode.",
		}, []string{"check", "decision", "mode"}),
		rejects: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "obgw", Name: "rejections_total",
			Help: "Requests rejected by the gateway, by Berlin Group error code.",
		}, []string{"code"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "obgw", Name: "verify_duration_seconds",
			Help:    "Time spent verifying a request (all checks).",
			Buckets: []float64{25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 10e-3, 50e-3},
		}),
		deleted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "obgw", Name: "retention_deleted_total",
			Help: "Rows the retention sweep deleted, by kind (sca_flows, sessions, consents, sealing_keys).",
		}, []string{"kind"}),
	}
	for _, c := range gateway.Checks() {
		for d := 1; d < gateway.NumDecisions; d++ {
			for mode, name := range []string{"enforce", "report_only"} {
				m.byCheck[c][d][mode] = m.checks.WithLabelValues(c.String(), gateway.Decision(d).String(), name)
			}
		}
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.checks, m.rejects, m.duration, m.deleted} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return nil, err
			}
		}
	}
	return m, nil
}

// observe counts one verified (or rejected) request.
func (m *metrics) observe(out *gateway.Outcome, p *gateway.Policy, took time.Duration) {
	if m == nil {
		return
	}
	for _, c := range gateway.Checks() {
		d := out.Decision(c)
		if d == gateway.DecisionNone {
			continue
		}
		m.byCheck[c][d][p.Modes[c]].Inc()
	}
	if out.Err != nil {
		m.rejects.WithLabelValues(out.Err.Code).Inc()
	}
	m.duration.Observe(took.Seconds())
}

// swept counts what one retention sweep deleted.
func (m *metrics) swept(n store.Swept) {
	if m == nil {
		return
	}
	m.deleted.WithLabelValues("sca_flows").Add(float64(n.Flows))
	m.deleted.WithLabelValues("sessions").Add(float64(n.Sessions))
	m.deleted.WithLabelValues("consents").Add(float64(n.Consents))
	m.deleted.WithLabelValues("sealing_keys").Add(float64(n.SealingKeys))
}
