package caddymodule

import (
	"net/http"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/obgw/obgw/bgerror"
)

// discard is a ResponseWriter that keeps nothing.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

// BenchmarkBackendAnswerCounted is what obgw_backend adds to an answer to
// count it (obgw_responses_total): the recorder, the family variable's
// look-up and the counter, for a 4 KB page and for a 401 CONSENT_INVALID
// (whose code is read from its body's start).
func BenchmarkBackendAnswerCounted(b *testing.B) {
	page := make([]byte, 4096)
	consent := bgerror.New(bgerror.CodeConsentInvalid, "the PSU has not consented; the PSU must authorise access").WithSCARedirect("/v1/sca/s/abc.def")
	r := requestIn("ais", nil)
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter)
	}{
		{"200 page", func(w http.ResponseWriter) { w.WriteHeader(200); _, _ = w.Write(page) }},
		{"401 CONSENT_INVALID", func(w http.ResponseWriter) { consent.Write(w) }},
	} {
		w := &discard{h: http.Header{}}
		b.Run(tc.name+"/uncounted", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tc.answer(w)
			}
		})
		b.Run(tc.name+"/counted", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rec := &answerRecorder{ResponseWriterWrapper: caddyhttp.ResponseWriterWrapper{ResponseWriter: w}}
				tc.answer(rec)
				status, code := rec.result()
				obgwMetrics.answered(requestFamily(r), status, code, byBackend)
			}
		})
	}
}

// BenchmarkStoreOpTimed is what timing one store operation costs
// (store.Observed's observe: obgw_store_duration_seconds).
func BenchmarkStoreOpTimed(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		obgwMetrics.storeOp("ResolveAccess", time.Since(start))
	}
}
