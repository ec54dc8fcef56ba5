package caddymodule

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/obgw/obgw/backend/store"
)

// storeCommits is the collector of obgw_store_shared_commits_total and
// obgw_store_shared_writes_total: at each scrape, what store.Commits says
// of every embedded SQLite store of this process (payment creations
// committed, and the commits that held them). PostgreSQL stores, whose
// writers commit one by one, export none.
type storeCommits struct{}

var (
	sharedCommits = prometheus.NewDesc("obgw_store_shared_commits_total",
		"Commits of the embedded SQLite store that held payment creations; shared_writes/shared_commits is the payments per commit.", nil, nil)
	sharedWrites = prometheus.NewDesc("obgw_store_shared_writes_total",
		"Payment creations the embedded SQLite store committed, each in a commit shared with those waiting beside it.", nil, nil)
)

// Describe implements prometheus.Collector.
func (storeCommits) Describe(ch chan<- *prometheus.Desc) {
	ch <- sharedCommits
	ch <- sharedWrites
}

// Collect implements prometheus.Collector.
func (storeCommits) Collect(ch chan<- prometheus.Metric) {
	var sum store.CommitCounts
	embedded := false
	stores.Range(func(_, v any) bool {
		s := v.(*sharedStore)
		if isURL(s.url) {
			return true
		}
		embedded = true
		s.mu.Lock()
		st := s.st
		s.mu.Unlock()
		if st != nil {
			c := store.Commits(st)
			sum.Commits += c.Commits
			sum.Writes += c.Writes
		}
		return true
	})
	if !embedded {
		return
	}
	ch <- prometheus.MustNewConstMetric(sharedCommits, prometheus.CounterValue, float64(sum.Commits))
	ch <- prometheus.MustNewConstMetric(sharedWrites, prometheus.CounterValue, float64(sum.Writes))
}
