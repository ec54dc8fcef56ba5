package caddymodule

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/obgw/obgw/bgerror"
)

// TestAnswerRecorder: the recorder notes the status of any answer and the
// Berlin Group code of an error answer: as the value bgerror.Error.Write
// tells it, through wrapping writers too; read from the body only for
// answers that arrive as bytes (readCode: a backend service's, an
// upstream's). A success's body is not read, nor an error body that is
// not a Berlin Group one.
func TestAnswerRecorder(t *testing.T) {
	for _, tc := range []struct {
		name       string
		readCode   bool
		answer     func(w http.ResponseWriter)
		status     int
		code, body string
	}{
		{"nothing written", false, func(http.ResponseWriter) {}, 200, "", ""},
		{"JSON page", true, func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR"}]}`))
		}, 200, "", `{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR"}]}`},
		{"created", true, func(w http.ResponseWriter) { w.WriteHeader(201); _, _ = w.Write([]byte(`{}`)) }, 201, "", `{}`},
		{"no content", true, func(w http.ResponseWriter) { w.WriteHeader(204) }, 204, "", ""},
		{"consent invalid", false, func(w http.ResponseWriter) {
			bgerror.New(bgerror.CodeConsentInvalid, "no consent").WithSCARedirect("/v1/sca/x").Write(w)
		}, 401, bgerror.CodeConsentInvalid, ""},
		{"consent invalid through a wrapping writer", false, func(w http.ResponseWriter) {
			bgerror.New(bgerror.CodeConsentInvalid, "no consent").Write(wrapping{w})
		}, 401, bgerror.CodeConsentInvalid, ""},
		{"error bytes of the in-process backend are not read", false, func(w http.ResponseWriter) {
			w.WriteHeader(400)
			_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR"}]}`))
		}, 400, "", ""},
		{"error bytes from a service", true, func(w http.ResponseWriter) {
			w.WriteHeader(400)
			_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR"}]}`))
		}, 400, bgerror.CodeFormatError, ""},
		{"HTML error page", true, func(w http.ResponseWriter) {
			w.WriteHeader(403)
			_, _ = w.Write([]byte("<p>not this browser</p>"))
			_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR"}]}`))
		}, 403, "", ""},
		{"early hints first", true, func(w http.ResponseWriter) { w.WriteHeader(103); w.WriteHeader(200) }, 200, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			rec := &answerRecorder{ResponseWriterWrapper: caddyhttp.ResponseWriterWrapper{ResponseWriter: w}, readCode: tc.readCode}
			tc.answer(rec)
			status, code := rec.result()
			if status != tc.status || code != tc.code {
				t.Errorf("recorded %d %q, want %d %q", status, code, tc.status, tc.code)
			}
			if tc.body != "" && w.Body.String() != tc.body {
				t.Errorf("body %q passed on as %q", tc.body, w.Body.String())
			}
		})
	}
}

// wrapping is a writer that wraps another, as the backend's do.
type wrapping struct{ http.ResponseWriter }

func (w wrapping) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// requestIn returns a request carrying Caddy's request variables (family
// set when not empty) and replacer, as a server's handlers get it.
func requestIn(family string, vars map[string]any) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/v1/x", nil)
	if vars == nil {
		vars = map[string]any{}
	}
	if family != "" {
		vars[familyVar] = family
	}
	ctx := context.WithValue(r.Context(), caddyhttp.VarsCtxKey, vars)
	ctx = context.WithValue(ctx, caddy.ReplacerCtxKey, caddy.NewReplacer())
	return r.WithContext(ctx)
}

// responses returns obgw_responses_total of the labels.
func responses(family string, status, code, by string) float64 {
	return testutil.ToFloat64(obgwMetrics.responses.WithLabelValues(family, status, code, by))
}

// TestErrorHandlerCounts: obgw_error counts what it answers, with a code
// or from the status of the error Caddy handles, under the request's
// family, "other" without one.
func TestErrorHandlerCounts(t *testing.T) {
	before := responses("ais", "404", "RESOURCE_UNKNOWN", byGateway)
	_ = Error{Code: bgerror.CodeResourceUnknown, Status: 404}.ServeHTTP(httptest.NewRecorder(), requestIn("ais", nil), nil)
	if got := responses("ais", "404", "RESOURCE_UNKNOWN", byGateway); got != before+1 {
		t.Errorf("a 404 on an ais route counted %v times", got-before)
	}
	r := requestIn("", nil)
	r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer).Set("http.error.status_code", 421)
	before = responses(familyOther, "421", "FORMAT_ERROR", byGateway)
	_ = Error{}.ServeHTTP(httptest.NewRecorder(), r, nil)
	if got := responses(familyOther, "421", "FORMAT_ERROR", byGateway); got != before+1 {
		t.Errorf("a 421 outside every route counted %v times", got-before)
	}
}

// TestRequestFamily: the family a policy set, else other.
func TestRequestFamily(t *testing.T) {
	if f := requestFamily(requestIn("sca", nil)); f != "sca" {
		t.Errorf("family %q, want sca", f)
	}
	if f := requestFamily(requestIn("", nil)); f != familyOther {
		t.Errorf("family %q, want other", f)
	}
	if f := requestFamily(httptest.NewRequest(http.MethodGet, "/", nil)); f != familyOther {
		t.Errorf("outside Caddy: family %q, want other", f)
	}
}

// TestValidFamily: families are short lower-case names.
func TestValidFamily(t *testing.T) {
	for name, want := range map[string]bool{"ais": true, "tpp_contacts": true, "pis2": true, "": false, "AIS": false,
		"2ais": false, "a-b": false, "a b": false, strings.Repeat("a", 33): false} {
		if got := validFamily(name); got != want {
			t.Errorf("validFamily(%q) = %v", name, got)
		}
	}
}

// TestDependencyUp: obgw_dependency_up is 1 for a Redis that answers and
// 0 once one does not (a port nobody listens on), asked at the scrape;
// with no Redis configured there is no redis series.
func TestDependencyUp(t *testing.T) {
	if os.Getenv("OBGW_SKIP_REDIS") == "1" {
		t.Skip("OBGW_SKIP_REDIS=1")
	}
	redisUp := func(want string) {
		t.Helper()
		exp := ""
		if want != "" {
			exp = "# HELP obgw_dependency_up " + "Whether Redis (dependency=redis) and the backend database (dependency=database) answer, asked at each scrape: 1 or 0." + `
# TYPE obgw_dependency_up gauge
obgw_dependency_up{dependency="redis"} ` + want + "\n"
		}
		if err := testutil.CollectAndCompare(dependencies{}, strings.NewReader(exp)); err != nil {
			t.Error(err)
		}
	}
	redisUp("")
	use := func(url string) {
		if _, _, err := sharedStates.LoadOrNew("test "+url, func() (caddy.Destructor, error) { return newSharedState(url) }); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _, _ = sharedStates.Delete("test " + url) })
	}
	use("redis://127.0.0.1:6379/0")
	redisUp("1")
	use("redis://127.0.0.1:1/0")
	redisUp("0")
}

// TestRedisTimer: every command the gateway sends Redis is timed by name.
func TestRedisTimer(t *testing.T) {
	if os.Getenv("OBGW_SKIP_REDIS") == "1" {
		t.Skip("OBGW_SKIP_REDIS=1")
	}
	st, err := newSharedState("redis://127.0.0.1:6379/0")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Destruct()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(obgwMetrics.redis)
	pings := func() uint64 {
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			for _, m := range mf.GetMetric() {
				if m.GetLabel()[0].GetValue() == "ping" {
					return m.GetHistogram().GetSampleCount()
				}
			}
		}
		return 0
	}
	before := pings()
	if err := st.ping(context.Background()); err != nil {
		t.Fatalf("Redis at 127.0.0.1:6379: %v (start redis-server, or set OBGW_SKIP_REDIS=1)", err)
	}
	if got := pings(); got != before+1 {
		t.Errorf("a PING timed %d times", got-before)
	}
}
