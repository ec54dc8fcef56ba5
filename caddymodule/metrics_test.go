package caddymodule

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/obgw/obgw/backend/store"
)

// TestRetentionMetric: what a sweep deleted is counted by kind in
// obgw_retention_deleted_total, across sweeps.
func TestRetentionMetric(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := newMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	m.swept(store.Swept{Flows: 3, Sessions: 1, SealingKeys: 1})
	m.swept(store.Swept{Flows: 2, Consents: 4})
	for kind, want := range map[string]float64{"sca_flows": 5, "sessions": 1, "consents": 4, "sealing_keys": 1} {
		if got := testutil.ToFloat64(m.deleted.WithLabelValues(kind)); got != want {
			t.Errorf("obgw_retention_deleted_total{kind=%q} = %v, want %v", kind, got, want)
		}
	}
	if n, err := testutil.GatherAndCount(reg, "obgw_retention_deleted_total"); err != nil || n != 4 {
		t.Errorf("registry has %d series of obgw_retention_deleted_total (%v), want 4", n, err)
	}
}
