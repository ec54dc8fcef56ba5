package integration

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// counted waits until the scrape at url gives every series its value
// (an answer is counted once it is written, just after the client has
// it), and fails naming those that did not get there. A value of 0 also
// holds for a series that is not there.
func counted(t *testing.T, url string, want map[string]float64) map[string]float64 {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := scrape(t, url)
		var wrong []string
		for s, v := range want {
			if got[s] != v {
				wrong = append(wrong, fmt.Sprintf("%s = %v, want %v", s, got[s], v))
			}
		}
		if len(wrong) == 0 {
			return got
		}
		if time.Now().After(deadline) {
			for _, w := range wrong {
				t.Error(w)
			}
			return got
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// sumBy adds the series of obgw_responses_total whose labels include all
// of labels.
func sumBy(m map[string]float64, labels ...string) (n float64) {
	for s, v := range m {
		if !strings.HasPrefix(s, "obgw_responses_total{") {
			continue
		}
		all := true
		for _, l := range labels {
			all = all && strings.Contains(s, l)
		}
		if all {
			n += v
		}
	}
	return n
}

// TestMetricsCountBackendService (issue 19): in the split deployment
// (OBGW_BACKEND=proxy) the gateway counts the backend service's answers
// on its own /metrics, by="backend" under the route's family, once; a
// backend that is gone is the gateway's 503 (handle_errors), counted by
// the gateway only.
func TestMetricsCountBackendService(t *testing.T) {
	port := freePort(t)
	key := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("m", 32)))
	b := startBackend(t, "testdata/split/backend.Caddyfile", port, append(databaseEnv(t, "sqlite"), "OBGW_CONTEXT_KEY="+key)...)
	g := startGateway(t, "Caddyfile", "OBGW_BACKEND=proxy", "OBGW_BACKEND_URL="+backendURL(port), "OBGW_CONTEXT_KEY="+key)
	metricsURL := "http://" + g.health + "/metrics"

	if got := signedCall(t, g, "/v1/accounts", pki.TPP("tpp").Seal); got.status != 401 || got.err.code() != "CONSENT_INVALID" {
		t.Fatalf("without consent: %d %s", got.status, got.body)
	}
	m := counted(t, metricsURL, map[string]float64{
		`obgw_responses_total{by="backend",code="CONSENT_INVALID",family="ais",status="401"}`: 1,
	})
	if n := sumBy(m); n != 1 {
		t.Errorf("one answer counted %v times on the gateway", n)
	}

	// The backend gone: the TPP gets the gateway's 503.
	_ = b.cmd.Process.Kill()
	if got := signedCall(t, g, "/v1/accounts", pki.TPP("tpp").Seal); got.status != 503 || got.err.code() != "SERVICE_UNAVAILABLE" {
		t.Fatalf("backend gone: %d %s", got.status, got.body)
	}
	m = counted(t, metricsURL, map[string]float64{
		`obgw_responses_total{by="gateway",code="SERVICE_UNAVAILABLE",family="ais",status="503"}`: 1,
	})
	if n := sumBy(m, `by="backend"`); n != 1 {
		t.Errorf("by=backend: %v answers, want the one before the backend went", n)
	}
}

// TestMetricsCountUpstream (issue 19): in front of a bank's own backend
// (OBGW_BACKEND=upstream) the upstream's answers are counted by="upstream"
// with their Berlin Group code; an upstream 502, which the TPP gets as
// the gateway's 503 (handle_response), is counted once, by the gateway.
func TestMetricsCountUpstream(t *testing.T) {
	// The bank's backend: 401 CONSENT_INVALID for the account list, 502
	// for anything else.
	g := gatewayBefore(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/accounts" {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"CONSENT_INVALID","text":"no consent"}]}`))
	}), "the upstream is a test double that answers a refusal or a 502, not the interface")
	metricsURL := "http://" + g.health + "/metrics"

	if got := signedCall(t, g, "/v1/accounts", pki.TPP("tpp").Seal); got.status != 401 || got.err.code() != "CONSENT_INVALID" {
		t.Fatalf("the upstream's refusal: %d %s", got.status, got.body)
	}
	if got := signedCall(t, g, "/v1/consents/unknown", pki.TPP("tpp").Seal); got.status != 503 || got.err.code() != "SERVICE_UNAVAILABLE" {
		t.Fatalf("the upstream's 502: %d %s", got.status, got.body)
	}
	m := counted(t, metricsURL, map[string]float64{
		`obgw_responses_total{by="upstream",code="CONSENT_INVALID",family="ais",status="401"}`:    1,
		`obgw_responses_total{by="gateway",code="SERVICE_UNAVAILABLE",family="ais",status="503"}`: 1,
	})
	if n := sumBy(m); n != 2 {
		t.Errorf("two answers counted %v times", n)
	}
}
