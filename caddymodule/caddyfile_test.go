package caddymodule

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"

	"github.com/obgw/obgw/gateway"

	_ "github.com/caddyserver/caddy/v2/modules/standard"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestUnmarshalVerify(t *testing.T) {
	d := caddyfile.NewTestDispenser(`obgw_verify {
		role PSP_PI
		require_headers TPP-Redirect-URI PSU-ID
		digest optional
		request_target required
		qwac required
		max_body 64KiB
		mode signature report_only
		on_error registry allow
		on_error ocsp allow
		redirect_http_localhost
	}`)
	v := new(Verify)
	if err := v.UnmarshalCaddyfile(d); err != nil {
		t.Fatal(err)
	}
	p, err := v.buildPolicy()
	if err != nil {
		t.Fatal(err)
	}
	if p.RequiredRole != "PSP_PI" || !p.DigestOptional || !p.RequireRequestTarget || !p.RequireQWAC || !p.AllowHTTPLocalhostRedirect {
		t.Fatalf("%+v", p)
	}
	if strings.Join(p.RequiredHeaders, ",") != "TPP-Redirect-URI,PSU-ID" {
		t.Fatalf("headers %v", p.RequiredHeaders)
	}
	if p.Modes[gateway.CheckSignature] != gateway.ModeReportOnly || p.Modes[gateway.CheckDigest] != gateway.ModeEnforce {
		t.Fatalf("modes %v", p.Modes)
	}
	if p.RegistryOnError != gateway.OnErrorAllow || p.ReplayOnError != gateway.OnErrorDeny || p.OCSPOnError != gateway.OnErrorAllow {
		t.Fatal("on_error")
	}
	if v.MaxBody != 64<<10 {
		t.Fatalf("max_body %d", v.MaxBody)
	}
}

func TestVerifyConfigErrors(t *testing.T) {
	for _, src := range []string{
		`obgw_verify { role PSP_XX }`,
		`obgw_verify { digest maybe }`,
		`obgw_verify { request_target sometimes }`,
		`obgw_verify { qwac perhaps }`,
		`obgw_verify { mode nosuchcheck enforce }`,
		`obgw_verify { mode signature loud }`,
		`obgw_verify { on_error registry ignore }`,
		`obgw_verify { on_error database allow }`,
		`obgw_verify { on_error ocsp maybe }`,
	} {
		v := new(Verify)
		err := v.UnmarshalCaddyfile(caddyfile.NewTestDispenser(src))
		if err == nil {
			_, err = v.buildPolicy()
		}
		if err == nil {
			t.Errorf("accepted %s", src)
		}
	}
	for _, src := range []string{`obgw_verify arg`, `obgw_verify { bogus }`, `obgw_verify { max_body lots }`, "obgw_verify {\n mode signature\n}"} {
		if err := new(Verify).UnmarshalCaddyfile(caddyfile.NewTestDispenser(src)); err == nil {
			t.Errorf("parsed %s", src)
		}
	}
}

func TestUnmarshalError(t *testing.T) {
	e := new(Error)
	if err := e.UnmarshalCaddyfile(caddyfile.NewTestDispenser(`obgw_error CONSENT_INVALID 401 {
		text "no consent"
		sca_redirect /v1/sca
	}`)); err != nil {
		t.Fatal(err)
	}
	if e.Code != "CONSENT_INVALID" || e.Status != 401 || e.Text != "no consent" || e.SCARedirect != "/v1/sca" {
		t.Fatalf("%+v", e)
	}
	if err := new(Error).UnmarshalCaddyfile(caddyfile.NewTestDispenser(`obgw_error X 200`)); err == nil {
		t.Fatal("status 200 accepted")
	}
}

func TestFromStatusNeverAnswers500(t *testing.T) {
	for status, want := range map[int]string{404: "RESOURCE_UNKNOWN", 405: "SERVICE_INVALID", 413: "FORMAT_ERROR", 400: "FORMAT_ERROR", 500: "SERVICE_UNAVAILABLE", 502: "SERVICE_UNAVAILABLE", 504: "SERVICE_UNAVAILABLE", 0: "SERVICE_UNAVAILABLE"} {
		e := fromStatus(status, "")
		if e.Code != want {
			t.Errorf("%d: %s, want %s", status, e.Code, want)
		}
		if e.Status == 500 {
			t.Errorf("%d answered 500", status)
		}
	}
}

// TestMisdirectedSaysWhatToDo (issue 16, F2): a 421 tells the client to
// connect with the certificate's host name.
func TestMisdirectedSaysWhatToDo(t *testing.T) {
	e := fromStatus(421, "")
	if e.Status != 421 || e.Code != "FORMAT_ERROR" || !strings.Contains(e.Text, "connect with the host name the server certificate names") {
		t.Errorf("421: %+v", e)
	}
}

func TestUnmarshalApp(t *testing.T) {
	a := new(App)
	if err := a.UnmarshalCaddyfile(caddyfile.NewTestDispenser(`obgw {
		qtsp_cas cas.pem
		registry https://register.example/tpps
		registry_ttl 2m
		cert_cache_size 50
		clock_skew 30s
		context_key
		environment production
	}`)); err != nil {
		t.Fatal(err)
	}
	if a.QTSPCAs != "cas.pem" || a.CertCacheSize != 50 || a.Environment != "production" || a.ContextKey != "" {
		t.Fatalf("%+v", a)
	}
	// An empty registry (OBGW_REGISTRY=) is the EBA register alone.
	eba := new(App)
	if err := eba.UnmarshalCaddyfile(caddyfile.NewTestDispenser("obgw {\n registry\n registry eba https://eba.example/PSDMD.json\n registry_country SE\n registry_refresh 12h\n registry_max_age 72h\n trust_store postgres://db/obgw\n trust_sources_ca proxy.pem\n}")); err != nil {
		t.Fatal(err)
	}
	if eba.Registry != "" || eba.RegistryEBA != "https://eba.example/PSDMD.json" || eba.RegistryCountry != "SE" || time.Duration(eba.RegistryRefresh) != 12*time.Hour ||
		time.Duration(eba.RegistryMaxAge) != 72*time.Hour || eba.TrustStore != "postgres://db/obgw" || eba.TrustSourcesCA != "proxy.pem" {
		t.Fatalf("%+v", eba)
	}
	if err := new(App).UnmarshalCaddyfile(caddyfile.NewTestDispenser("obgw {\n registry national https://x\n}")); err == nil || !strings.Contains(err.Error(), "eba") {
		t.Fatalf("registry with another kind: %v", err)
	}
	if _, err := (&App{}).registrySource(); err == nil || !strings.Contains(err.Error(), "registry_eba") {
		t.Fatalf("no register at all: %v", err)
	}
	for _, bad := range []*App{
		{RegistryEBA: "https://eba.example", RegistryCountry: "no"},
		{RegistryEBA: "https://eba.example", RegistryRefresh: caddy.Duration(48 * time.Hour), RegistryMaxAge: caddy.Duration(24 * time.Hour)},
		{RegistryEBA: "http://eba.example", Environment: EnvProduction},
	} {
		if _, err := bad.provisionEBA(); err == nil {
			t.Fatalf("%+v provisioned", bad)
		}
	}
	// Issue 16, F1: no CRL file is a bank's choice (OBGW_CRL=).
	noCRL := &App{CRL: "set"}
	if err := noCRL.UnmarshalCaddyfile(caddyfile.NewTestDispenser("obgw {\n crl\n}")); err != nil || noCRL.CRL != "" {
		t.Fatalf("empty crl: %v, %q", err, noCRL.CRL)
	}
	if err := (&App{Environment: "staging"}).Validate(); err == nil {
		t.Fatal("unknown environment accepted")
	}
}

// adaptShipped adapts the repository's Caddyfile as obgw run would, from
// the repository root (where its paths are relative to), which stays t's
// working directory.
func adaptShipped(t *testing.T) ([]byte, []caddyconfig.Warning) {
	t.Helper()
	t.Chdir("..")
	file, _ := filepath.Abs("Caddyfile")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out, warnings, err := caddyfile.Adapter{ServerType: httpcaddyfile.ServerType{}}.Adapt(src, map[string]any{"filename": file})
	if err != nil {
		t.Fatal(err)
	}
	return out, warnings
}

// TestShippedCaddyfileAdapts pins the JSON the shipped Caddyfile and its
// policies adapt to (with no OBGW_* variables set). Run with -update after an
// intended change and review the diff.
func TestShippedCaddyfileAdapts(t *testing.T) {
	for _, k := range []string{"OBGW_LISTEN", "OBGW_ADMIN", "OBGW_QTSP_CAS", "OBGW_CRL", "OBGW_REGISTRY", "OBGW_CONTEXT_KEY", "OBGW_ENV", "OBGW_DIAGNOSTICS", "OBGW_TLS_CERT", "OBGW_TLS_KEY"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	wd, _ := os.Getwd()
	out, warnings := adaptShipped(t)
	for _, w := range warnings {
		t.Errorf("warning: %s:%d: %s", w.File, w.Line, w.Message)
	}
	var pretty bytes.Buffer
	json.Indent(&pretty, out, "", "\t")
	pretty.WriteByte('\n')
	golden := filepath.Join(wd, "testdata", "Caddyfile.golden.json")
	if *update {
		if err := os.WriteFile(golden, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, pretty.Bytes()) {
		t.Fatalf("adapted Caddyfile differs from %s; run go test ./caddymodule -run ShippedCaddyfile -update and review:\n%s", golden, pretty.String())
	}
}

// TestShippedCaddyfileKeepsSecretsOut: with the secrets set in the
// environment, the adapted configuration (what the admin API serves and
// Caddy would autosave) holds none of them; they are read at provision.
func TestShippedCaddyfileKeepsSecretsOut(t *testing.T) {
	secrets := map[string]string{
		"OBGW_CONTEXT_KEY":  "c2VjcmV0LWNvbnRleHQta2V5LW9mLTMyLWJ5dGVzLi4uLi4=",
		"OBGW_REDIS_URL":    "redis://:redis-password@127.0.0.1:6379/0",
		"OBGW_DATABASE_URL": "postgres://obgw:db-password@127.0.0.1/obgw",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	out, _ := adaptShipped(t)
	for k, v := range secrets {
		if bytes.Contains(out, []byte(v)) {
			t.Errorf("the adapted configuration holds %s", k)
		}
	}
	if !bytes.Contains(out, []byte(`"persist":false`)) {
		t.Error("the shipped configuration would be autosaved")
	}
}

// TestSecretValue: a secret comes from a runtime placeholder or a file,
// never both.
func TestSecretValue(t *testing.T) {
	t.Setenv("OBGW_TEST_SECRET", "from-env")
	if v, err := secretValue("context_key", "{env.OBGW_TEST_SECRET}", ""); err != nil || v != "from-env" {
		t.Fatalf("placeholder: %q %v", v, err)
	}
	file := filepath.Join(t.TempDir(), "key")
	os.WriteFile(file, []byte("  from-file\n"), 0o600)
	if v, err := secretValue("context_key", "{env.OBGW_UNSET_SECRET}", file); err != nil || v != "from-file" {
		t.Fatalf("file: %q %v", v, err)
	}
	if _, err := secretValue("context_key", "{env.OBGW_TEST_SECRET}", file); err == nil {
		t.Fatal("a key from both the environment and a file was accepted")
	}
	if _, err := secretValue("context_key", "", filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("a missing key file was accepted")
	}
}

func TestUnmarshalFixes(t *testing.T) {
	f := new(Fixes)
	if err := f.UnmarshalCaddyfile(caddyfile.NewTestDispenser("obgw_fixes {\n fix longer-names 2020-06-01 2024-10-01\n}")); err != nil {
		t.Fatal(err)
	}
	if len(f.Fixes) != 1 || f.Fixes[0].Name != "longer-names" || f.Fixes[0].DefaultSince != "2024-10-01" {
		t.Fatalf("%+v", f.Fixes)
	}
	if err := new(Fixes).UnmarshalCaddyfile(caddyfile.NewTestDispenser("obgw_fixes {\n fix longer-names 2020-06-01\n}")); err == nil {
		t.Fatal("fix without default-since accepted")
	}
}

// TestCaddyfileErrorsSayWhatIsWanted (issue 19): a wrong value is named
// with its directive and the form wanted.
func TestCaddyfileErrorsSayWhatIsWanted(t *testing.T) {
	for _, c := range []struct {
		parse func(*caddyfile.Dispenser) error
		input string
		want  []string
	}{
		{func(d *caddyfile.Dispenser) error { return new(Verify).UnmarshalCaddyfile(d) }, "obgw_verify {\nmax_body sixteen\n}",
			[]string{"obgw_verify max_body", `"sixteen"`, "64KiB"}},
		{func(d *caddyfile.Dispenser) error { return new(Verify).UnmarshalCaddyfile(d) }, "obgw_verify {\nbody_timeout soon\n}",
			[]string{"obgw_verify body_timeout", `"soon"`, "30s"}},
		{func(d *caddyfile.Dispenser) error { return new(App).UnmarshalCaddyfile(d) }, "obgw {\nbody_memory lots\n}",
			[]string{"obgw body_memory", `"lots"`, "16MiB"}},
		{func(d *caddyfile.Dispenser) error { return new(App).UnmarshalCaddyfile(d) }, "obgw {\nregistry_ttl long\n}",
			[]string{"obgw registry_ttl", `"long"`, "10m"}},
		{func(d *caddyfile.Dispenser) error { return new(App).UnmarshalCaddyfile(d) }, "obgw {\ncert_cache_size many\n}",
			[]string{"obgw cert_cache_size", `"many"`, "whole number"}},
	} {
		err := c.parse(caddyfile.NewTestDispenser(c.input))
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%q: %v, want it to say %s", c.input, err, w)
			}
		}
	}
}
