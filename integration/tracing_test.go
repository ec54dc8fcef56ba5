package integration

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// The span tree of a signed request, as a trace backend receives it: the
// real binary runs the shipped Caddyfile with OBGW_TRACING=on and exports
// over OTLP/HTTP, its default, to a receiver in
// this test (a child process cannot share the SDK's in-memory exporter).

// span is one span received, with its service (OTEL_SERVICE_NAME).
type span struct {
	service        string
	name           string
	kind           tracepb.Span_SpanKind
	trace, id, par string
	attrs          map[string]string
}

// otlpReceiver collects the spans OTLP/HTTP exporters send it.
type otlpReceiver struct {
	url   string
	mu    sync.Mutex
	spans []span
}

func startOTLPReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rc := &otlpReceiver{url: "http://" + l.Addr().String()}
	srv := &http.Server{Handler: http.HandlerFunc(rc.export)}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return rc
}

func (rc *otlpReceiver) export(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req coltracepb.ExportTraceServiceRequest
	if r.URL.Path != "/v1/traces" || proto.Unmarshal(body, &req) != nil {
		http.Error(w, "want an ExportTraceServiceRequest at /v1/traces", http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	for _, rs := range req.ResourceSpans {
		service := attrMap(rs.GetResource().GetAttributes())["service.name"]
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				rc.spans = append(rc.spans, span{service: service, name: s.Name, kind: s.Kind,
					trace: hex.EncodeToString(s.TraceId), id: hex.EncodeToString(s.SpanId), par: hex.EncodeToString(s.ParentSpanId),
					attrs: attrMap(s.Attributes)})
			}
		}
	}
	rc.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

func attrMap(kvs []*commonpb.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		switch v := kv.Value.GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			m[kv.Key] = v.StringValue
		case *commonpb.AnyValue_IntValue:
			m[kv.Key] = fmt.Sprint(v.IntValue)
		default:
			m[kv.Key] = fmt.Sprint(kv.Value.GetValue())
		}
	}
	return m
}

// await returns the spans received once ok holds of them, or fails after
// ten seconds.
func (rc *otlpReceiver) await(t *testing.T, what string, ok func([]span) bool) []span {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		rc.mu.Lock()
		spans := append([]span(nil), rc.spans...)
		rc.mu.Unlock()
		if ok(spans) {
			return spans
		}
		if time.Now().After(deadline) {
			for _, s := range spans {
				t.Logf("%s %s %s parent %s %v", s.service, s.name, s.id, s.par, s.attrs)
			}
			t.Fatalf("no %s among %d spans received", what, len(spans))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// tracingEnv points a process's OpenTelemetry SDK at rc as service.
func tracingEnv(rc *otlpReceiver, service string) []string {
	return []string{"OBGW_TRACING=on", "OTEL_TRACES_EXPORTER=otlp", "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf",
		"OTEL_EXPORTER_OTLP_ENDPOINT=" + rc.url, "OTEL_SERVICE_NAME=" + service,
		"OTEL_BSP_SCHEDULE_DELAY=100", "OTEL_TRACES_SAMPLER=parentbased_always_on"}
}

// tracedRequest sends the signed request whose trace the tests assert on:
// a consent's creation, with a PSU-ID (201 with an scaRedirect: every
// check, the backend, the SCA flow written to the store). It returns
// the request's trace id, from the access log, and the values no span may
// carry: the PSU-ID, the Signature header and the certificate.
func tracedRequest(t *testing.T, g *gateway) (traceID string, secrets map[string]string) {
	t.Helper()
	req := newRequest(t, g, "POST", "/v1/bank-offered-consents", nil)
	rid := uuid.NewString()
	req.Header.Set("X-Request-ID", rid)
	psuID := uuid.NewString()
	req.Header.Set("TPP-Session-ID", uuid.NewString())
	req.Header.Set("PSU-ID", psuID)
	req.Header.Set("PSU-IP-Address", "192.0.2.10")
	if err := signer(t, "tpp").Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	got := send(t, client(nil), req)
	if got.status != 201 {
		t.Fatalf("traced request: %d %s", got.status, got.body)
	}
	sig := req.Header.Get("Signature")
	_, sigValue, _ := strings.Cut(sig, `signature="`)
	cert := req.Header.Get("TPP-Signature-Certificate")
	der, _ := base64.StdEncoding.DecodeString(cert)
	return accessLogTrace(t, g, rid), map[string]string{"PSU-ID": psuID, "Signature": sig, "signature value": strings.TrimSuffix(sigValue, `"`),
		"certificate": cert[:64], "certificate DER": string(der[:32])}
}

// accessLogTrace returns the trace id the access log gives the request
// with X-Request-ID rid.
func accessLogTrace(t *testing.T, g *gateway, rid string) string {
	t.Helper()
	re := regexp.MustCompile(`"traceID":"([0-9a-f]{32})"`)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for _, line := range strings.Split(g.logs(), "\n") {
			if m := re.FindStringSubmatch(line); m != nil && strings.Contains(line, `"X-Request-Id":["`+rid+`"]`) {
				return m[1]
			}
		}
	}
	t.Fatalf("no access log entry with a trace id for X-Request-ID %s", rid)
	return ""
}

// spanTree indexes spans by id.
type spanTree map[string]span

func tree(spans []span) spanTree {
	m := spanTree{}
	for _, s := range spans {
		m[s.id] = s
	}
	return m
}

// under reports whether s has ancestor a.
func (tr spanTree) under(s span, a span) bool {
	for p, ok := tr[s.par]; ok; p, ok = tr[p.par] {
		if p.id == a.id {
			return true
		}
	}
	return false
}

// find returns the spans of service for which ok holds.
func find(spans []span, service string, ok func(span) bool) []span {
	var out []span
	for _, s := range spans {
		if s.service == service && ok(s) {
			out = append(out, s)
		}
	}
	return out
}

// checkGatewaySpans asserts the gateway's part of trace traceID: Caddy's
// server span, named obgw, with one obgw.<check> child per check that ran
// (pass, enforce, the TPP). It waits until complete holds of the trace's
// spans, and returns them and the server span.
func checkGatewaySpans(t *testing.T, rc *otlpReceiver, traceID string, complete func([]span) bool) ([]span, span) {
	t.Helper()
	inTrace := func(all []span) []span {
		var out []span
		for _, s := range all {
			if s.trace == traceID {
				out = append(out, s)
			}
		}
		return out
	}
	spans := inTrace(rc.await(t, "complete trace "+traceID, func(all []span) bool { return complete(inTrace(all)) }))
	servers := find(spans, "obgw-gateway", func(s span) bool { return s.name == "obgw" && s.kind == tracepb.Span_SPAN_KIND_SERVER })
	if len(servers) != 1 {
		t.Fatalf("%d gateway server spans, want 1", len(servers))
	}
	server := servers[0]
	for _, c := range []string{"hygiene", "date", "certificate", "signature", "registry", "role", "replay"} {
		got := find(spans, "obgw-gateway", func(s span) bool { return s.name == "obgw."+c })
		if len(got) != 1 {
			t.Errorf("%d obgw.%s spans, want 1", len(got), c)
			continue
		}
		s := got[0]
		if s.par != server.id || s.trace != server.trace {
			t.Errorf("obgw.%s is not a child of the request's span", c)
		}
		if s.attrs["obgw.check"] != c || s.attrs["obgw.decision"] != "pass" || s.attrs["obgw.mode"] != "enforce" ||
			s.attrs["obgw.tpp"] != "PSDNO-FSA-987654321" {
			t.Errorf("obgw.%s attributes %v", c, s.attrs)
		}
	}
	return spans, server
}

// checkBackendSpans asserts the backend's part: the route's span under
// parent, with the TPP, and store statements under it, one of them the
// flow's INSERT.
func checkBackendSpans(t *testing.T, spans []span, service string, parent span) {
	t.Helper()
	tr := tree(spans)
	routes := find(spans, service, func(s span) bool { return s.name == "POST /v1/bank-offered-consents" })
	if len(routes) != 1 {
		t.Fatalf("%d backend route spans, want 1", len(routes))
	}
	route := routes[0]
	if route.trace != parent.trace || !tr.under(route, parent) {
		t.Errorf("the backend's span is not under %s's %s span", parent.service, parent.name)
	}
	if route.attrs["http.route"] != "/v1/bank-offered-consents" || route.attrs["http.request.method"] != "POST" ||
		route.attrs["obgw.tpp"] != "PSDNO-FSA-987654321" || route.attrs["obgw.error"] != "" {
		t.Errorf("backend span attributes %v", route.attrs)
	}
	queries := find(spans, service, func(s span) bool { return s.attrs["db.system.name"] == "sqlite" })
	inserts := 0
	for _, q := range queries {
		if !tr.under(q, route) {
			t.Errorf("store span %s is not under the backend's", q.name)
		}
		if q.attrs["db.operation.name"] == "INSERT" {
			inserts++
		}
	}
	if len(queries) == 0 || inserts == 0 {
		t.Errorf("%d store spans, %d INSERTs: want the SCA flow written", len(queries), inserts)
	}
}

// checkNoSecrets asserts that no span attribute carries a secret.
func checkNoSecrets(t *testing.T, spans []span, secrets map[string]string) {
	t.Helper()
	for _, s := range spans {
		for k, v := range s.attrs {
			for what, secret := range secrets {
				if strings.Contains(v, secret) {
					t.Errorf("%s span %s: attribute %s carries the %s", s.service, s.name, k, what)
				}
			}
		}
	}
}

// TestTraceInProcess: one signed request through the shipped Caddyfile
// with tracing on, backend in process, Redis for replay: Caddy's server
// span, the checks' spans under it, the Redis command, the backend's
// route, the store's statements under the route; no secret anywhere.
func TestTraceInProcess(t *testing.T) {
	rc := startOTLPReceiver(t)
	env := append(databaseEnv(t, "sqlite"), "OBGW_REDIS_URL="+redisURL(t))
	g := startGateway(t, "Caddyfile", append(env, tracingEnv(rc, "obgw-gateway")...)...)
	tracedRequest(t, g) // the first request opens the database
	traceID, secrets := tracedRequest(t, g)
	spans, server := checkGatewaySpans(t, rc, traceID, func(spans []span) bool {
		return len(find(spans, "obgw-gateway", func(s span) bool { return s.name == "obgw" })) > 0
	})
	checkBackendSpans(t, spans, "obgw-gateway", server)
	if route := find(spans, "obgw-gateway", func(s span) bool { return s.name == "POST /v1/bank-offered-consents" }); route[0].par != server.id {
		t.Error("the in-process backend's span is not a child of the request's")
	}
	redis := find(spans, "obgw-gateway", func(s span) bool { return s.attrs["db.system"] == "redis" && s.name == "set" })
	if len(redis) != 1 || redis[0].par != server.id {
		t.Errorf("replay's Redis command: %v", redis)
	}
	checkNoSecrets(t, rc.await(t, "spans", func([]span) bool { return true }), secrets)
}

// TestTraceSplit: the same request through a gateway and a backend-only
// process (mutual TLS), both tracing: the backend's spans continue the
// gateway's trace (W3C traceparent), its server span a child of the
// gateway's.
func TestTraceSplit(t *testing.T) {
	rc := startOTLPReceiver(t)
	port := freePort(t)
	key := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("t", 32)))
	startBackend(t, "testdata/split/backend.Caddyfile", port,
		append(append(databaseEnv(t, "sqlite"), "OBGW_CONTEXT_KEY="+key), tracingEnv(rc, "obgw-backend")...)...)
	g := startGateway(t, "Caddyfile", append([]string{"OBGW_BACKEND=proxy", "OBGW_BACKEND_URL=" + backendURL(port),
		"OBGW_CONTEXT_KEY=" + key}, tracingEnv(rc, "obgw-gateway")...)...)
	tracedRequest(t, g) // the first request opens the database
	traceID, secrets := tracedRequest(t, g)
	spans, server := checkGatewaySpans(t, rc, traceID, func(spans []span) bool {
		return len(find(spans, "obgw-gateway", func(s span) bool { return s.name == "obgw" })) > 0 &&
			len(find(spans, "obgw-backend", func(s span) bool { return s.name == "obgw-backend" })) > 0
	})
	backends := find(spans, "obgw-backend", func(s span) bool { return s.name == "obgw-backend" && s.kind == tracepb.Span_SPAN_KIND_SERVER })
	if len(backends) != 1 || backends[0].trace != server.trace || backends[0].par != server.id {
		t.Fatalf("the backend's server span does not continue the gateway's: %+v, gateway %s/%s", backends, server.trace, server.id)
	}
	checkBackendSpans(t, spans, "obgw-backend", backends[0])
	if len(find(spans, "obgw-gateway", func(s span) bool { return s.attrs["db.system.name"] != "" })) != 0 {
		t.Error("store spans from the gateway of a split deployment")
	}
	checkNoSecrets(t, rc.await(t, "spans", func([]span) bool { return true }), secrets)
}

// TestTracingConsole (issue 33, 1): the README's command as written,
// OBGW_TRACING=on with OTEL_TRACES_EXPORTER=console, prints the spans of
// a request on standard output.
func TestTracingConsole(t *testing.T) {
	g := startGateway(t, "Caddyfile", "OBGW_DATA_DIR="+t.TempDir(), "OBGW_TRACING=on", "OTEL_TRACES_EXPORTER=console", "OTEL_BSP_SCHEDULE_DELAY=100")
	if got := send(t, client(nil), newRequest(t, g, http.MethodGet, "/healthz", nil)); got.status != 200 {
		t.Fatalf("healthz: %d", got.status)
	}
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(g.logs(), `"Name":"obgw"`); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no span printed:\n%s", g.logs())
		}
	}
}
