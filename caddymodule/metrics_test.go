package caddymodule

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/gateway"
	"github.com/obgw/obgw/gateway/eidas"
)

// TestRetentionMetric: what a sweep deleted is counted by kind in
// obgw_retention_deleted_total, across sweeps; the abandoned flows among
// them in the SCA funnel.
func TestRetentionMetric(t *testing.T) {
	m := newMetrics()
	reg := prometheus.NewPedanticRegistry()
	if err := m.register(reg); err != nil {
		t.Fatal(err)
	}
	m.swept(store.Swept{Flows: 3, Sessions: 1, SealingKeys: 1, Abandoned: 2})
	m.swept(store.Swept{Flows: 2, Consents: 4, Allowances: 7})
	for kind, want := range map[string]float64{"sca_flows": 5, "sessions": 1, "consents": 4, "sealing_keys": 1, "allowances": 7} {
		if got := testutil.ToFloat64(m.deleted.WithLabelValues(kind)); got != want {
			t.Errorf("obgw_retention_deleted_total{kind=%q} = %v, want %v", kind, got, want)
		}
	}
	if n, err := testutil.GatherAndCount(reg, "obgw_retention_deleted_total"); err != nil || n != 5 {
		t.Errorf("registry has %d series of obgw_retention_deleted_total (%v), want 5", n, err)
	}
	if got := testutil.ToFloat64(m.scaFlows.WithLabelValues("abandoned", "")); got != 2 {
		t.Errorf("abandoned flows %v, want 2", got)
	}
}

// TestMetricsSurviveReload: the collectors of a process go into the
// registry of each configuration that loads, as they are: what the first
// configuration counted, the second's registry serves, and counting goes
// on there.
func TestMetricsSurviveReload(t *testing.T) {
	m := newMetrics()
	first := prometheus.NewPedanticRegistry()
	if err := m.register(first); err != nil {
		t.Fatal(err)
	}
	out := &gateway.Outcome{}
	out.Decisions[gateway.CheckHygiene] = gateway.DecisionFail
	m.observe(out, &gateway.Policy{}, 0)
	m.answered("ais", 400, "FORMAT_ERROR", byGateway)
	second := prometheus.NewPedanticRegistry()
	if err := m.register(second); err != nil {
		t.Fatal(err)
	}
	m.answered("ais", 400, "FORMAT_ERROR", byGateway)
	want := `
# HELP obgw_responses_total Answers by route family, HTTP status, Berlin Group code (empty when the answer is not a Berlin Group error) and producer (gateway, backend or upstream).
# TYPE obgw_responses_total counter
obgw_responses_total{by="gateway",code="",family="health",status="200"} 0
obgw_responses_total{by="gateway",code="FORMAT_ERROR",family="ais",status="400"} 2
`
	if err := testutil.GatherAndCompare(second, strings.NewReader(want), "obgw_responses_total"); err != nil {
		t.Error(err)
	}
	if n, err := testutil.GatherAndCount(second, "obgw_check_total", "obgw_verify_duration_seconds"); err != nil || n == 0 {
		t.Errorf("the second registry has %d series of the first's checks (%v)", n, err)
	}
}

// TestReplayLocalMetric: a request whose replay check went on in memory
// (Redis failed, on_error replay allow) is counted.
func TestReplayLocalMetric(t *testing.T) {
	m := newMetrics()
	out := &gateway.Outcome{}
	out.Context.Unverified = []string{"registry:error_allowed", gateway.ReplayLocal}
	m.observe(out, &gateway.Policy{}, 0)
	m.observe(&gateway.Outcome{}, &gateway.Policy{}, 0)
	if got := testutil.ToFloat64(m.replayLocal); got != 1 {
		t.Errorf("obgw_replay_local_total = %v, want 1", got)
	}
}

// TestValidityMetrics: a configuration's CRLs and CAs are published by
// issuer and subject, the earliest end of each, and replace the previous
// configuration's.
func TestValidityMetrics(t *testing.T) {
	m := newMetrics()
	day := time.Date(2027, 1, 2, 0, 0, 0, 0, time.UTC)
	ca := func(cn string, notAfter time.Time) *x509.Certificate {
		return &x509.Certificate{Subject: pkix.Name{CommonName: cn}, NotAfter: notAfter}
	}
	m.publishValidity(validity{
		crls: []eidas.CRLValidity{{Issuer: "Issuing CA", NextUpdate: day.Add(48 * time.Hour)}, {Issuer: "Issuing CA", NextUpdate: day}, {Issuer: "No next update"}},
		cas:  []*x509.Certificate{ca("Root CA", day.AddDate(10, 0, 0)), ca("Issuing CA", day.AddDate(1, 0, 0))},
	})
	if got := testutil.ToFloat64(m.crlNextUpdate.WithLabelValues("Issuing CA")); got != float64(day.Unix()) {
		t.Errorf("CRL nextUpdate %v, want the earliest, %v", got, day.Unix())
	}
	if got := testutil.ToFloat64(m.certExpiry.WithLabelValues("qtsp_ca", "Root CA")); got != float64(day.AddDate(10, 0, 0).Unix()) {
		t.Errorf("Root CA notAfter %v", got)
	}
	if n := testutil.CollectAndCount(m.crlNextUpdate); n != 1 {
		t.Errorf("%d CRL series, want 1 (none for a CRL without nextUpdate)", n)
	}
	m.publishValidity(validity{cas: []*x509.Certificate{ca("New CA", day)}})
	if n, c := testutil.CollectAndCount(m.crlNextUpdate), testutil.CollectAndCount(m.certExpiry); n != 0 || c != 1 {
		t.Errorf("after a reload without CRLs: %d CRL and %d CA series, want 0 and 1", n, c)
	}
}

// TestBankSealExpiry: the bank's seal that bank_seal_cert loads is
// published as kind bank_seal, by its subject, with its notAfter, beside
// the CAs; a configuration without one publishes none.
func TestBankSealExpiry(t *testing.T) {
	a := &App{BankSealCert: "../testdata/pki/bank-seal.pem", BankSealKey: "../testdata/pki/bank-seal-key.pem"}
	if err := a.loadSeal(); err != nil {
		t.Fatal(err)
	}
	cert := a.seal.Certificate()
	m := newMetrics()
	m.publishValidity(a.validity)
	if got := testutil.ToFloat64(m.certExpiry.WithLabelValues(certBankSeal, cert.Subject.CommonName)); got != float64(cert.NotAfter.Unix()) {
		t.Errorf("bank seal %q notAfter %v, want %v", cert.Subject.CommonName, got, cert.NotAfter.Unix())
	}
	if n := testutil.CollectAndCount(m.certExpiry); n != 1 {
		t.Errorf("%d certificate series, want the seal's", n)
	}
	m.publishValidity(validity{})
	if n := testutil.CollectAndCount(m.certExpiry); n != 0 {
		t.Errorf("after a reload without a seal: %d certificate series", n)
	}
}
