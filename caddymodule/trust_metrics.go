package caddymodule

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// trustSources are the downloaded trust sources of the running
// configurations, for the metrics: added as one starts, removed as it
// stops.
var trustSources sync.Map // *trustSource → source label

var (
	trustFetchedDesc = prometheus.NewDesc("obgw_trust_source_fetched_timestamp_seconds",
		"When each downloaded trust source in use was last fetched (a conditional GET answered 304 counts); 0 before the first. Past its max age lookups fail closed.",
		[]string{"source"}, nil)
	trustedListNextUpdateDesc = prometheus.NewDesc("obgw_trusted_list_next_update_timestamp_seconds",
		"NextUpdate of each national trusted list in use, by territory: past it and the grace (qtsp_trusted_list_grace), that territory's CAs fail closed.",
		[]string{"territory"}, nil)
	trustEntriesDesc = prometheus.NewDesc("obgw_trust_source_entries",
		"What each downloaded trust source in use holds: the EBA register's institutions, the trusted lists' qualified CA services.",
		[]string{"source"}, nil)
)

// trustCollector reports the trust sources at each scrape.
type trustCollector struct{}

func (trustCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- trustFetchedDesc
	ch <- trustEntriesDesc
	ch <- trustedListNextUpdateDesc
}

func (trustCollector) Collect(ch chan<- prometheus.Metric) {
	seen := map[string]bool{}
	trustSources.Range(func(k, v any) bool {
		e, source := k.(*trustSource), v.(string)
		if seen[source] {
			return true // a reload's old and new configuration: one series
		}
		seen[source] = true
		var fetched, entries float64
		if f := e.keeper.Fetched(); !f.IsZero() {
			fetched = float64(f.UnixNano()) / 1e9
		}
		if n := e.entries(); n > 0 {
			entries = float64(n)
		}
		ch <- prometheus.MustNewConstMetric(trustFetchedDesc, prometheus.GaugeValue, fetched, source)
		ch <- prometheus.MustNewConstMetric(trustEntriesDesc, prometheus.GaugeValue, entries, source)
		if e.lists != nil {
			for _, l := range e.lists() {
				ch <- prometheus.MustNewConstMetric(trustedListNextUpdateDesc, prometheus.GaugeValue, float64(l.NextUpdate.Unix()), l.Territory)
			}
		}
		return true
	})
}

// trustFetchFailed counts a failed fetch of source.
func (m *metrics) trustFetchFailed(source string) {
	m.trustFailures.WithLabelValues(source).Inc()
}
