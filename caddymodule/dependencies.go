package caddymodule

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// dependencies is the collector of obgw_dependency_up. At each scrape it
// asks, as /readyz does, every Redis the replay and limit state of this
// process uses (dependency="redis") and every database its backends and
// readiness handlers use (dependency="database"), each within a second:
// 1 when all of a kind answer, 0 when one does not. A process without
// Redis, or without a database (a gateway in front of a separate
// backend), exports no series of that kind.
type dependencies struct{}

// dependencyUp describes obgw_dependency_up.
var dependencyUp = prometheus.NewDesc("obgw_dependency_up",
	"Whether Redis (dependency=redis) and the backend database (dependency=database) answer, asked at each scrape: 1 or 0.",
	[]string{"dependency"}, nil)

// pingTimeout bounds each question at a scrape.
const pingTimeout = time.Second

// Describe implements prometheus.Collector.
func (dependencies) Describe(ch chan<- *prometheus.Desc) { ch <- dependencyUp }

// Collect implements prometheus.Collector.
func (dependencies) Collect(ch chan<- prometheus.Metric) {
	// What to ask is listed first: the pools stay locked only for that.
	var pings []func(context.Context) error
	var kinds []string
	sharedStates.Range(func(_, v any) bool {
		if s := v.(*sharedState); s.client != nil {
			pings, kinds = append(pings, s.ping), append(kinds, "redis")
		}
		return true
	})
	stores.Range(func(_, v any) bool {
		pings, kinds = append(pings, v.(*sharedStore).ping), append(kinds, "database")
		return true
	})
	up := map[string]float64{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, ping := range pings {
		kind := kinds[i]
		mu.Lock()
		if _, seen := up[kind]; !seen {
			up[kind] = 1
		}
		mu.Unlock()
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
			defer cancel()
			if ping(ctx) != nil {
				mu.Lock()
				up[kind] = 0
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for kind, v := range up {
		ch <- prometheus.MustNewConstMetric(dependencyUp, prometheus.GaugeValue, v, kind)
	}
}
