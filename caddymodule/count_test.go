package caddymodule

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/obgw/obgw/bgerror"
)

// TestCountCountsWhatPassesThrough: obgw_count counts the answer of the
// handler after it once, by its producer and the request's family; an
// error returned is left to handle_errors' obgw_error, and an answer
// obgw_error writes through it (reverse_proxy's handle_response) is
// counted by obgw_error only, as the gateway's.
func TestCountCountsWhatPassesThrough(t *testing.T) {
	for _, tc := range []struct {
		name   string
		by     string
		next   caddyhttp.HandlerFunc
		err    bool
		counts map[[4]string]float64
	}{
		{"backend CONSENT_INVALID", byBackend, func(w http.ResponseWriter, _ *http.Request) error {
			bgerror.New(bgerror.CodeConsentInvalid, "no consent").Write(w)
			return nil
		}, false, map[[4]string]float64{
			{"ais", "401", "CONSENT_INVALID", byBackend}: 1,
		}},
		{"upstream success", byUpstream, func(w http.ResponseWriter, _ *http.Request) error {
			w.WriteHeader(http.StatusCreated)
			return nil
		}, false, map[[4]string]float64{
			{"ais", "201", "", byUpstream}: 1,
		}},
		{"unreachable", byUpstream, func(http.ResponseWriter, *http.Request) error {
			return caddyhttp.Error(http.StatusBadGateway, errors.New("dial tcp: connection refused"))
		}, true, map[[4]string]float64{
			{"ais", "502", "", byUpstream}: 0,
			{"ais", "200", "", byUpstream}: 0,
		}},
		{"upstream 503 answered by obgw_error", byUpstream, func(w http.ResponseWriter, r *http.Request) error {
			// As handle_response passes it: behind another wrapper.
			inner := &caddyhttp.ResponseWriterWrapper{ResponseWriter: w}
			return Error{Code: bgerror.CodeServiceUnavailable, Status: 503}.ServeHTTP(inner, r, nil)
		}, false, map[[4]string]float64{
			{"ais", "503", "SERVICE_UNAVAILABLE", byGateway}:  1,
			{"ais", "503", "SERVICE_UNAVAILABLE", byUpstream}: 0,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := map[[4]string]float64{}
			for l := range tc.counts {
				before[l] = responses(l[0], l[1], l[2], l[3])
			}
			c := &Count{By: tc.by}
			err := c.ServeHTTP(httptest.NewRecorder(), requestIn("ais", nil), tc.next)
			if (err != nil) != tc.err {
				t.Fatalf("error %v, want one: %v", err, tc.err)
			}
			for l, want := range tc.counts {
				if got := responses(l[0], l[1], l[2], l[3]) - before[l]; got != want {
					t.Errorf("%v counted %v times, want %v", l, got, want)
				}
			}
		})
	}
}

// TestCountCaddyfile: obgw_count takes who answers, backend or upstream,
// and nothing else.
func TestCountCaddyfile(t *testing.T) {
	for src, want := range map[string]string{
		"obgw_count backend":              byBackend,
		"obgw_count upstream":             byUpstream,
		"obgw_count":                      "",
		"obgw_count gateway":              "",
		"obgw_count backend x":            "",
		"obgw_count backend {\n\tby x\n}": "",
	} {
		var c Count
		err := c.UnmarshalCaddyfile(caddyfile.NewTestDispenser(src))
		if want == "" {
			if err == nil {
				t.Errorf("%q accepted: %+v", src, c)
			}
			continue
		}
		if err != nil || c.By != want {
			t.Errorf("%q: %+v, %v", src, c, err)
		}
	}
}
