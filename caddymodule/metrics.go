package caddymodule

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/obgw/obgw/backend/sca"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/gateway"
)

// metrics are obgw's Prometheus collectors. They are made once per
// process and registered in the metrics registry of every configuration
// that loads (registerMetrics), as Caddy does with its own admin and
// configuration counters: a config reload gives Caddy a new registry, and
// the same collectors, still counting, go into it. Labels are bounded:
// check, decision, mode, route family, status, Berlin Group code, store
// operation, Redis command, SCA step; never a TPP, PSU or account.
type metrics struct {
	checks *prometheus.CounterVec
	// byCheck holds the counters of checks resolved once, so a request
	// costs no label hashing: [check][decision][mode].
	byCheck  [gateway.NumChecks][gateway.NumDecisions][2]prometheus.Counter
	rejects  *prometheus.CounterVec
	duration prometheus.Histogram
	// replayLocal counts requests whose replay check went on in this
	// instance's memory because Redis failed (on_error replay allow).
	replayLocal prometheus.Counter
	// responses counts every answer by route family, status, Berlin Group
	// code and who produced it (responses.go).
	responses *prometheus.CounterVec
	// deleted counts the rows the retention sweep deleted, by kind.
	deleted *prometheus.CounterVec
	// store and redis time the backend's store operations and the
	// gateway's Redis commands (store_metrics.go, redis_metrics.go).
	store *prometheus.HistogramVec
	redis *prometheus.HistogramVec
	// scaFlows is the SCA funnel (metrics.go, scaStep).
	scaFlows *prometheus.CounterVec
	// crlNextUpdate and certExpiry are the validity ends of what the
	// running configuration loaded (expiry.go).
	crlNextUpdate *prometheus.GaugeVec
	certExpiry    *prometheus.GaugeVec
	// up answers, at each scrape, whether Redis and the database do
	// (dependencies.go).
	up prometheus.Collector
	// commits says how many payment creations the embedded store
	// committed in how many commits (store_commits.go).
	commits prometheus.Collector
	// trust reports the downloaded trust sources at each scrape, and
	// trustFailures counts their failed fetches (trust_metrics.go).
	trust         prometheus.Collector
	trustFailures *prometheus.CounterVec
}

// obgwMetrics are this process's collectors.
var obgwMetrics = newMetrics()

// latencyBuckets are the buckets of the store and Redis histograms: from
// a cached SQLite read to a PostgreSQL query stuck behind a lock.
var latencyBuckets = []float64{100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3, 250e-3, 1, 5}

func newMetrics() *metrics {
	m := &metrics{
		checks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "obgw", Name: "check_total",
			Help: "Decisions of the TPP verification checks, by check, decision and mode.",
		}, []string{"check", "decision", "mode"}),
		rejects: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "obgw", Name: "rejections_total",
			Help: "Requests rejected by the gateway's verification, by Berlin Group error code.",
		}, []string{"code"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "obgw", Name: "verify_duration_seconds",
			Help:    "Time spent verifying a request (all checks).",
			Buckets: []float64{25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 10e-3, 50e-3},
		}),
		replayLocal: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "obgw", Name: "replay_local_total",
			Help: "Requests whose replay check went on in this instance's memory because Redis failed (on_error replay allow).",
		}),
		responses: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "obgw", Name: "responses_total",
			Help: "Answers by route family, HTTP status, Berlin Group code (empty when the answer is not a Berlin Group error) and producer (gateway, backend or upstream).",
		}, []string{"family", "status", "code", "by"}),
		deleted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "obgw", Name: "retention_deleted_total",
			Help: "Rows the retention sweep deleted, by kind (sca_flows, sessions, consents, sealing_keys, allowances).",
		}, []string{"kind"}),
		store: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "obgw", Name: "store_duration_seconds",
			Help:    "Time of the backend's store operations, by operation (the store method).",
			Buckets: latencyBuckets,
		}, []string{"op"}),
		redis: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "obgw", Name: "redis_duration_seconds",
			Help:    "Time of the gateway's Redis commands (replay protection and limits), by command.",
			Buckets: latencyBuckets,
		}, []string{"command"}),
		scaFlows: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "obgw", Name: "sca_flows_total",
			Help: "SCA flows by step: started, identified, confirmed, failed (with its reason) and abandoned (left pending, counted when swept).",
		}, []string{"step", "reason"}),
		crlNextUpdate: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "obgw", Name: "crl_next_update_timestamp_seconds",
			Help: "nextUpdate of each CRL loaded from the crl file, by issuing CA; past it, that CA's certificates are refused.",
		}, []string{"issuer"}),
		certExpiry: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "obgw", Name: "certificate_expiry_timestamp_seconds",
			Help: "notAfter of the certificates the configuration loaded, by kind (qtsp_ca: the trusted QTSP CAs; bank_seal: the QSealC the answers are signed with) and subject.",
		}, []string{"kind", "subject"}),
		up:      dependencies{},
		commits: storeCommits{},
		trust:   trustCollector{},
		trustFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "obgw", Name: "trust_source_fetch_failures_total",
			Help: "Failed fetches of each downloaded trust source (unreachable, refused, or not what it should be); the last good copy stays in use.",
		}, []string{"source"}),
	}
	m.initSeries()
	for _, c := range gateway.Checks() {
		for d := 1; d < gateway.NumDecisions; d++ {
			for mode, name := range []string{"enforce", "report_only"} {
				m.byCheck[c][d][mode] = m.checks.WithLabelValues(c.String(), gateway.Decision(d).String(), name)
			}
		}
	}
	return m
}

// initSeries makes the documented series of known label values, at
// zero, so that dashboards and alerts see them from the first scrape
// (TestDocumentedMetricsFromTheStart).
func (m *metrics) initSeries() {
	for _, code := range bgerror.Codes() {
		m.rejects.WithLabelValues(code)
	}
	for _, kind := range []string{"sca_flows", "sessions", "consents", "sealing_keys", "allowances"} {
		m.deleted.WithLabelValues(kind)
	}
	for _, op := range store.Operations() {
		m.store.WithLabelValues(op)
	}
	for _, cmd := range []string{"set", "evalsha", "eval", "zrem", "ping", "pipeline"} {
		m.redis.WithLabelValues(cmd)
	}
	for _, s := range sca.Funnel() {
		m.scaFlows.WithLabelValues(s[0], s[1])
	}
	for _, source := range []string{"registry_eba", "qtsp_trusted_list"} {
		m.trustFailures.WithLabelValues(source)
	}
	// Answers are many combinations; readiness's is there from the start.
	m.responses.WithLabelValues(familyHealth, "200", "", byGateway)
}

// register puts m's collectors in a configuration's registry.
func (m *metrics) register(reg prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{m.checks, m.rejects, m.duration, m.replayLocal, m.responses, m.deleted,
		m.store, m.redis, m.scaFlows, m.crlNextUpdate, m.certExpiry, m.up, m.commits, m.trust, m.trustFailures} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return err
			}
		}
	}
	return nil
}

// observe counts one verified (or rejected) request.
func (m *metrics) observe(out *gateway.Outcome, p *gateway.Policy, took time.Duration) {
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
	for _, u := range out.Context.Unverified {
		if u == gateway.ReplayLocal {
			m.replayLocal.Inc()
		}
	}
	m.duration.Observe(took.Seconds())
}

// scaStep counts one step of the SCA funnel (backend.Config.ObserveSCA).
func (m *metrics) scaStep(step, reason string) {
	m.scaFlows.WithLabelValues(step, reason).Inc()
}

// storeOp times one store operation (store.Observed).
func (m *metrics) storeOp(op string, took time.Duration) {
	m.store.WithLabelValues(op).Observe(took.Seconds())
}

// swept counts what one retention sweep deleted; the pending flows among
// them were abandoned by their PSUs.
func (m *metrics) swept(n store.Swept) {
	m.deleted.WithLabelValues("sca_flows").Add(float64(n.Flows))
	m.deleted.WithLabelValues("sessions").Add(float64(n.Sessions))
	m.deleted.WithLabelValues("consents").Add(float64(n.Consents))
	m.deleted.WithLabelValues("sealing_keys").Add(float64(n.SealingKeys))
	m.deleted.WithLabelValues("allowances").Add(float64(n.Allowances))
	m.scaFlows.WithLabelValues(sca.StepAbandoned, "").Add(float64(n.Abandoned))
}
