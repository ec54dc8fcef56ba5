package caddymodule

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"

	"github.com/obgw/obgw/testpki"
)

// productionPKI writes, once per test binary, a PKI like the test PKI but
// unpublished (testpki.GenerateUnpublished) and returns its directory,
// which TestMain removes.
var productionPKI = sync.OnceValues(func() (string, error) {
	p, err := testpki.GenerateUnpublished(time.Now())
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "obgw-production-pki")
	if err != nil {
		return "", err
	}
	productionPKIDir = dir
	return dir, p.WriteDir(dir)
})

// productionPKIDir is productionPKI's directory, once made.
var productionPKIDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if productionPKIDir != "" {
		os.RemoveAll(productionPKIDir)
	}
	os.Exit(code)
}

// shippedApp adapts the shipped Caddyfile with env set and loads its obgw
// app as Caddy does at start (Provision, then Validate).
func shippedApp(t *testing.T, env map[string]string) (*App, error) {
	t.Helper()
	for _, k := range []string{"OBGW_ENV", "OBGW_DIAGNOSTICS"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	// The trust files: the test PKI for a sandbox, one of production's
	// own (which refuses the test PKI) otherwise.
	dir := "testdata/pki"
	if env["OBGW_ENV"] != EnvSandbox {
		var err error
		if dir, err = productionPKI(); err != nil {
			t.Fatal(err)
		}
	}
	for k, f := range map[string]string{"OBGW_QTSP_CAS": testpki.FileQTSPCAs, "OBGW_CRL": testpki.FileQTSPCRL, "OBGW_REGISTRY": testpki.FileRegistry,
		"OBGW_BANK_SEAL_CERT": testpki.FileBankSeal, "OBGW_BANK_SEAL_KEY": testpki.FileBankSealKey} {
		t.Setenv(k, filepath.Join(dir, f))
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	wd, _ := os.Getwd()
	t.Chdir("..")
	defer os.Chdir(wd)
	file, _ := filepath.Abs("Caddyfile")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := caddyfile.Adapter{ServerType: httpcaddyfile.ServerType{}}.Adapt(src, map[string]any{"filename": file})
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Apps map[string]json.RawMessage `json:"apps"`
	}
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatal(err)
	}
	a := new(App)
	if err := json.Unmarshal(cfg.Apps["obgw"], a); err != nil {
		t.Fatal(err)
	}
	// As Caddy loads an app module: Provision, then Validate.
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	if err := a.Provision(ctx); err != nil {
		return nil, err
	}
	t.Cleanup(func() { a.Cleanup() })
	return a, a.Validate()
}

// TestDiagnosticsSetting: the shipped Caddyfile's diagnostics are on in a
// sandbox and off in production unless OBGW_DIAGNOSTICS says otherwise,
// and on in production refuses to start, saying why.
func TestDiagnosticsSetting(t *testing.T) {
	for _, tt := range []struct {
		env, diagnostics string
		on               bool
		err              string
	}{
		{env: "sandbox", on: true},
		{env: "sandbox", diagnostics: "off", on: false},
		{env: "sandbox", diagnostics: "on", on: true},
		{env: "", on: false}, // production, the default
		{env: "production", diagnostics: "off", on: false},
		{env: "production", diagnostics: "on", err: "diagnostics on is for a sandbox only, and this is a production deployment"},
		{env: "", diagnostics: "on", err: "set diagnostics off (OBGW_DIAGNOSTICS=off), or environment sandbox"},
		{env: "sandbox", diagnostics: "yes", err: `diagnostics must be on or off (or empty: on in a sandbox only), not "yes"`},
	} {
		t.Run(tt.env+"/"+tt.diagnostics, func(t *testing.T) {
			if strings.Contains(tt.err, "must be on or off") {
				a := new(App)
				err := a.UnmarshalCaddyfile(caddyfile.NewTestDispenser("obgw {\n diagnostics " + tt.diagnostics + "\n}"))
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("%v, want %q", err, tt.err)
				}
				return
			}
			a, err := shippedApp(t, map[string]string{"OBGW_ENV": tt.env, "OBGW_DIAGNOSTICS": tt.diagnostics})
			switch {
			case tt.err != "":
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("%v, want %q", err, tt.err)
				}
			case err != nil:
				t.Fatal(err)
			case a.DiagnosticsOn() != tt.on:
				t.Fatalf("diagnostics on: %v, want %v", a.DiagnosticsOn(), tt.on)
			}
		})
	}
	// Even a configuration written by hand cannot have them in production.
	on := true
	if (&App{Environment: EnvProduction, Diagnostics: &on}).DiagnosticsOn() {
		t.Error("diagnostics on in production")
	}
}
