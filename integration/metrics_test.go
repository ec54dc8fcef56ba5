package integration

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// scrape reads the Prometheus text exposition at url: each series (its
// name and labels as written, labels in the order the exposition sorts
// them) with its value.
func scrape(t testing.TB, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", url, line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// TestMetricsSurviveReload (issue 19): the shipped Caddyfile serves
// Prometheus metrics on the health listener (not on the TPPs' site);
// every answer is counted by route family, status, Berlin Group code and
// producer: the gateway's refusal (401), the unknown path (404), the body
// limit (413) and the backend's CONSENT_INVALID; and a configuration
// reload resets none of obgw's counters, nor Caddy's own.
func TestMetricsSurviveReload(t *testing.T) {
	g := startGateway(t, "Caddyfile")
	c := client(nil)
	metricsURL := "http://" + g.health + "/metrics"

	signed := func(tpp, method, path string, body []byte) response {
		t.Helper()
		req := newRequest(t, g, method, path, body)
		if err := signer(t, tpp).Sign(req, body); err != nil {
			t.Fatal(err)
		}
		return send(t, c, req)
	}
	expect := func(r response, status int, code string) {
		t.Helper()
		if r.status != status || r.err.code() != code && code != "" {
			t.Fatalf("got %d %s, want %d %s: %s", r.status, r.err.code(), status, code, r.body)
		}
	}
	requests := func() {
		t.Helper()
		expect(signed("revoked", http.MethodGet, "/v1/accounts", nil), 401, "CERTIFICATE_REVOKED")
		expect(signed("tpp", http.MethodGet, "/v1/accounts", nil), 401, "CONSENT_INVALID")
		expect(signed("tpp", http.MethodGet, "/v1/nothing-here", nil), 404, "RESOURCE_UNKNOWN")
		huge := bytes.Repeat([]byte("a"), 1<<20+1)
		req := newRequest(t, g, http.MethodPost, "/v1/payments/domestic-credit-transfers-no", huge)
		badRequest(req) // unsigned, to no product, with a body over the bound
		expect(send(t, c, req), 413, "FORMAT_ERROR")
	}
	// What each request above adds to obgw_responses_total.
	answers := []string{
		`obgw_responses_total{by="gateway",code="CERTIFICATE_REVOKED",family="ais",status="401"}`,
		`obgw_responses_total{by="backend",code="CONSENT_INVALID",family="ais",status="401"}`,
		`obgw_responses_total{by="gateway",code="RESOURCE_UNKNOWN",family="other",status="404"}`,
		`obgw_responses_total{by="gateway",code="FORMAT_ERROR",family="pis",status="413"}`,
	}
	// Series that count and must not go back.
	counters := append([]string{
		`obgw_rejections_total{code="CERTIFICATE_REVOKED"}`,
		`obgw_check_total{check="signature",decision="pass",mode="enforce"}`,
		`obgw_verify_duration_seconds_count`,
	}, answers...)
	// Caddy's own process-wide counter, of the admin API's GET /config/
	// (each reload below asks for the configuration first).
	const configReads = `caddy_admin_http_requests_total{code="200",handler="admin",method="GET",path="/config/"}`

	requests()
	before := scrape(t, metricsURL)
	for _, s := range answers {
		if before[s] != 1 {
			t.Errorf("%s = %v, want 1", s, before[s])
		}
	}
	if before[`obgw_dependency_up{dependency="database"}`] != 1 {
		t.Error("obgw_dependency_up of the database is not 1")
	}
	sum := func(m map[string]float64, prefix string) (n float64) {
		for s, v := range m {
			if strings.HasPrefix(s, prefix) {
				n += v
			}
		}
		return n
	}
	if n := sum(before, "caddy_http_requests_total{"); n < 4 {
		t.Errorf("Caddy's HTTP metrics (metrics on): %v requests counted", n)
	}
	if sum(before, "obgw_store_duration_seconds_count{") == 0 {
		t.Error("no store operation timed in obgw_store_duration_seconds")
	}

	reload(t, g)
	reload(t, g)
	after := scrape(t, metricsURL)
	for _, s := range counters {
		if after[s] == 0 || after[s] < before[s] {
			t.Errorf("after two reloads %s = %v, was %v", s, after[s], before[s])
		}
	}
	if after[configReads] < 2 {
		t.Errorf("Caddy's own %s = %v, want 2", configReads, after[configReads])
	}

	// The new configuration counts on from there.
	requests()
	deadline := time.Now().Add(5 * time.Second)
	again := scrape(t, metricsURL)
	for again[answers[0]] != 2 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		again = scrape(t, metricsURL)
	}
	for _, s := range answers {
		if again[s] != 2 {
			t.Errorf("after the reloads and the same requests again, %s = %v, want 2", s, again[s])
		}
	}
	if r := signed("tpp", http.MethodGet, "/metrics", nil); r.status != 404 {
		t.Errorf("the TPPs' site serves /metrics: %d %s", r.status, r.body)
	}
}

// TestDocumentedMetricsFromTheStart (issue 33, 3): every metric the
// README's table documents is on /metrics at the first scrape of a fresh
// start, before any request, sweep or SCA flow, so that dashboards and
// alerts see it; only those of sources this configuration lacks (the
// downloaded trust sources, with labels known only once one is loaded)
// are absent.
func TestDocumentedMetricsFromTheStart(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var documented [][]string
	for _, row := range regexp.MustCompile("(?m)^\\| `obgw_.*$").FindAllString(string(readme), -1) {
		first := strings.SplitN(row, " | ", 2)[0] // the metric column
		documented = append(documented, regexp.MustCompile("`(obgw_[a-z_]+)").FindAllStringSubmatch(first, -1)...)
	}
	onlyWithSource := map[string]bool{
		"obgw_trust_source_fetched_timestamp_seconds":     true,
		"obgw_trust_source_entries":                       true,
		"obgw_trusted_list_next_update_timestamp_seconds": true,
	}
	g := startGateway(t, "Caddyfile", "OBGW_DATA_DIR="+t.TempDir())
	got := scrape(t, "http://"+g.health+"/metrics")
	seen := map[string]bool{}
	for _, m := range documented {
		name := m[1]
		if seen[name] || onlyWithSource[name] {
			continue
		}
		seen[name] = true
		present := false
		for series := range got {
			if series == name || strings.HasPrefix(series, name+"{") || strings.HasPrefix(series, name+"_bucket") || strings.HasPrefix(series, name+"_count") {
				present = true
				break
			}
		}
		if !present {
			t.Errorf("%s is documented but not on /metrics at start", name)
		}
	}
	if len(seen) < 12 {
		t.Fatalf("only %d documented metrics found in the README: %v", len(seen), seen)
	}
	for _, series := range []string{`obgw_retention_deleted_total{kind="allowances"}`, `obgw_sca_flows_total{reason="too_many_attempts",step="failed"}`,
		`obgw_rejections_total{code="CERTIFICATE_BLOCKED"}`} {
		if v, ok := got[series]; !ok || v != 0 {
			t.Errorf("%s = %v (%v), want 0 from the start", series, v, ok)
		}
	}
}
