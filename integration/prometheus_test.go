package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// prometheusBinary finds the Prometheus server. CI installs Debian's
// prometheus; a missing one fails the test rather than skipping it,
// unless OBGW_SKIP_PROMETHEUS=1.
func prometheusBinary(t *testing.T) string {
	t.Helper()
	if os.Getenv("OBGW_SKIP_PROMETHEUS") == "1" {
		t.Skip("OBGW_SKIP_PROMETHEUS=1")
	}
	p, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatal("no prometheus on PATH: install Debian's prometheus (apt-get install prometheus)")
	}
	return p
}

// promRule is a rule as Prometheus's /api/v1/rules lists it.
type promRule struct {
	Name      string `json:"name"`
	Type      string `json:"type"`
	Health    string `json:"health"`
	LastError string `json:"lastError"`
	State     string `json:"state"`
	Alerts    []struct {
		Labels map[string]string `json:"labels"`
		State  string            `json:"state"`
	} `json:"alerts"`
}

// promAPI gets a Prometheus HTTP API answer's data into v.
func promAPI(t *testing.T, base, path string, v any) {
	t.Helper()
	resp, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Status string          `json:"status"`
		Data   json.RawMessage `json:"data"`
		Error  string          `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Status != "success" {
		t.Fatalf("GET %s: %s %v %s", path, out.Status, err, out.Error)
	}
	if err := json.Unmarshal(out.Data, v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

// TestPrometheusEvaluatesRules (issue 19): a real Prometheus scrapes the
// shipped Caddyfile's /metrics and evaluates deploy/prometheus's rules:
// every rule loads and evaluates without error, and with Redis configured
// at an address where nothing listens, ObgwRedisDown goes pending and so
// does ObgwFailOpen, for the requests whose replay check went on in the
// instance's memory (on_error replay allow).
func TestPrometheusEvaluatesRules(t *testing.T) {
	bin := prometheusBinary(t)
	dead := freePort(t)
	g := startGateway(t, "Caddyfile", fmt.Sprintf("OBGW_REDIS_URL=redis://127.0.0.1:%d/0", dead))

	// A request admitted while Redis is down: replay protection in memory.
	c := client(nil)
	admit := func() {
		t.Helper()
		req := newRequest(t, g, http.MethodGet, "/v1/accounts", nil)
		if err := signer(t, "tpp").Sign(req, nil); err != nil {
			t.Fatal(err)
		}
		if r := send(t, c, req); r.status != 401 || r.err.code() != "CONSENT_INVALID" {
			t.Fatalf("with Redis down, replay on_error allow: %d %s", r.status, r.body)
		}
	}

	rules := filepath.Join(repoRoot, "deploy", "prometheus", "obgw.rules.yml")
	dir := t.TempDir()
	config := filepath.Join(dir, "prometheus.yml")
	err := os.WriteFile(config, fmt.Appendf(nil, `global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - %q
scrape_configs:
  - job_name: obgw
    static_configs:
      - targets: [%q]
`, rules, g.health), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	var out bytes.Buffer
	cmd := exec.Command(bin, "--config.file="+config, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port))
	cmd.Stdout, cmd.Stderr = &lockedWriter{w: &out}, &lockedWriter{w: &out}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("prometheus output:\n%s", out.String())
		}
	})

	raw, err := os.ReadFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Count(string(raw), "- record:") + strings.Count(string(raw), "- alert:")
	deadline := time.Now().Add(90 * time.Second)
	var pending map[string]bool
	for {
		if time.Now().After(deadline) {
			t.Fatalf("alerts pending or firing: %v; want ObgwRedisDown and ObgwFailOpen (replay_local)", pending)
		}
		time.Sleep(time.Second)
		if resp, err := http.Get(base + "/-/ready"); err != nil || resp.StatusCode != 200 {
			if err == nil {
				resp.Body.Close()
			}
			continue
		}
		var data struct {
			Groups []struct {
				Name  string     `json:"name"`
				Rules []promRule `json:"rules"`
			} `json:"groups"`
		}
		promAPI(t, base, "/api/v1/rules", &data)
		n, evaluated := 0, true
		pending = map[string]bool{}
		for _, grp := range data.Groups {
			for _, r := range grp.Rules {
				n++
				switch r.Health {
				case "ok":
				case "unknown":
					evaluated = false
				default:
					t.Fatalf("rule %s of %s: %s %s", r.Name, grp.Name, r.Health, r.LastError)
				}
				for _, a := range r.Alerts {
					if a.State == "pending" || a.State == "firing" {
						pending[r.Name+"/"+a.Labels["check"]+a.Labels["dependency"]] = true
					}
				}
			}
		}
		if n != want {
			t.Fatalf("Prometheus loaded %d rules of %s, which has %d", n, rules, want)
		}
		if evaluated && pending["ObgwRedisDown/redis"] && pending["ObgwFailOpen/replay_local"] {
			break
		}
		// One more while Prometheus watches: the rate it alerts on
		// needs two scrapes that differ.
		admit()
	}

	// What the alerts read, as Prometheus sees it.
	var up struct {
		Result []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		} `json:"result"`
	}
	promAPI(t, base, "/api/v1/query?query="+url.QueryEscape(`obgw_dependency_up{job="obgw"}`), &up)
	got := map[string]string{}
	for _, r := range up.Result {
		got[r.Metric["dependency"]] = fmt.Sprint(r.Value[1])
	}
	if got["redis"] != "0" || got["database"] != "1" {
		t.Errorf("obgw_dependency_up as Prometheus scraped it: %v, want redis 0 and database 1", got)
	}
	promAPI(t, base, "/api/v1/query?query="+url.QueryEscape(`obgw:responses:rate5m{family="ais",code="CONSENT_INVALID"}`), &up)
	if len(up.Result) != 1 || up.Result[0].Metric["by"] != "backend" {
		t.Errorf("the recording rule obgw:responses:rate5m: %+v", up.Result)
	}
}
