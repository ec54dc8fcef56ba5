package caddymodule

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/logging"
)

// TestLogDeferredEncoderSyntax: obgw_deferred alone, or with a wrapped
// format (with its own options); anything else is refused, naming it.
func TestLogDeferredEncoderSyntax(t *testing.T) {
	for _, tc := range []struct {
		in, wrap, err string
	}{
		{in: "obgw_deferred"},
		{in: "obgw_deferred {\n}"},
		{in: "obgw_deferred {\nwrap json\n}", wrap: `{"format":"json"}`},
		{in: "obgw_deferred {\nwrap console {\ntime_format iso8601\n}\n}", wrap: `{"format":"console","time_format":"iso8601"}`},
		{in: "obgw_deferred json", err: "wrong argument count"},
		{in: "obgw_deferred {\nlevel debug\n}", err: `unknown subdirective "level"`},
		{in: "obgw_deferred {\nwrap\n}", err: "wrong argument count"},
		{in: "obgw_deferred {\nwrap json\nwrap console\n}", err: "wrap given twice"},
		{in: "obgw_deferred {\nwrap nosuchformat\n}", err: "nosuchformat"},
	} {
		var e LogDeferredEncoder
		err := e.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tc.in))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one containing %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if string(e.WrappedRaw) != tc.wrap {
			t.Errorf("%q: wrap %s, want %s", tc.in, e.WrappedRaw, tc.wrap)
		}
	}
}

// TestLogDeferredEncoderLines: provisioned from the Caddyfile, without
// wrap (standard error is no terminal under go test) and with wrap json,
// obgw_deferred writes the lines of Caddy's json format for an entry
// whose logger was given a request through With, as Caddy's server gives
// it.
func TestLogDeferredEncoderLines(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	want := new(logging.JSONEncoder)
	if err := want.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	r := logRequest("GET", "/v1/accounts?withBalance=true", tppHeaders(), true)
	for _, in := range []string{"obgw_deferred", "obgw_deferred {\nwrap json\n}"} {
		e := new(LogDeferredEncoder)
		if err := e.UnmarshalCaddyfile(caddyfile.NewTestDispenser(in)); err != nil {
			t.Fatal(err)
		}
		if err := e.Provision(ctx); err != nil {
			t.Fatal(err)
		}
		got := logLine(t, e, r, 502, nil)
		sameLogLine(t, got, logLine(t, want, r, 502, nil))
		if !strings.Contains(string(got), `"request":{"remote_ip"`) {
			t.Errorf("%q: no request in the line: %s", in, got)
		}
	}
}

// TestShippedDefaultLogIsDeferred: the shipped Caddyfile gives Caddy's own
// log the format obgw_deferred, and that log still leaves the access log's
// lines to the access log.
func TestShippedDefaultLogIsDeferred(t *testing.T) {
	out, _ := adaptShipped(t)
	var cfg caddy.Config
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Logging == nil {
		t.Fatal("the shipped Caddyfile configures no logs")
	}
	def := cfg.Logging.Logs["default"]
	if def == nil {
		t.Fatal("the shipped Caddyfile configures no default log")
	}
	if !strings.Contains(string(def.EncoderRaw), `"format":"obgw_deferred"`) {
		t.Errorf("the default log's format is %s, not obgw_deferred", def.EncoderRaw)
	}
	if len(def.Exclude) == 0 || !strings.HasPrefix(def.Exclude[0], "http.log.access") {
		t.Errorf("the default log excludes %v, not the access log", def.Exclude)
	}
}
