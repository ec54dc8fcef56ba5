package integration

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/obgw/obgw/backend/bankaccount"
)

// paymentBody is a payment the slow-body tests announce and never finish.
var paymentBody = []byte(`{"instructedAmount":{"currency":"NOK","amount":"10.00"},"debtorAccount":{"iban":"NO7809232911044"},"creditorName":"Kari","creditorAccount":{"iban":"NO9386011117947"}}`)

// TestBodyNotReadBeforeAuthentication drives the slow-body attack: 800
// HTTP/2 streams announce a 1 MiB body and send none, with no signature
// and no certificate. The gateway answers each at once from its headers,
// reserves no memory for the announced bodies and keeps no stream open.
func TestBodyNotReadBeforeAuthentication(t *testing.T) {
	g := startGateway(t, "Caddyfile")
	pid := g.cmd.Process.Pid
	c := client(nil)
	c.Timeout = 15 * time.Second
	// Warm the process up, so that its baseline includes what any
	// request costs once (TLS, caches, the backend's database).
	for range 5 {
		req := newRequest(t, g, http.MethodGet, "/v1/accounts", nil)
		badRequest(req) // unsigned, as the streams below
		_ = send(t, c, req)
	}
	baseRSS, baseG := rss(t, pid), goroutines(t, g)

	const streams = 800
	var peak atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if r := int64(rss(t, pid)); r > peak.Load() {
				peak.Store(r)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	var wg sync.WaitGroup
	var answered, h2 atomic.Int64
	errs := make(chan error, streams)
	writers := make([]*io.PipeWriter, streams)
	for i := range streams {
		pr, pw := io.Pipe()
		writers[i] = pw
		req := newRequest(t, g, http.MethodPost, "/v1/payments/sepa-credit-transfers", nil)
		req.Body, req.ContentLength = pr, 1<<20
		req.Header.Set("Content-Type", "application/json")
		badRequest(req) // unsigned, and its body never comes
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.Do(req)
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			_, _ = io.Copy(io.Discard, resp.Body)
			if resp.StatusCode != http.StatusBadRequest {
				errs <- fmt.Errorf("status %d", resp.StatusCode)
				return
			}
			if resp.ProtoMajor == 2 {
				h2.Add(1)
			}
			answered.Add(1)
		}()
	}
	wg.Wait()
	close(stop)
	<-sampled
	close(errs)
	for err := range errs {
		t.Errorf("a stream was not answered from its headers: %v", err)
		break
	}
	for _, pw := range writers {
		pw.CloseWithError(errors.New("test over"))
	}
	if answered.Load() != streams || h2.Load() != streams {
		t.Fatalf("%d of %d streams answered 400, %d over HTTP/2", answered.Load(), streams, h2.Load())
	}
	// 800 announced MiB: buffers sized by Content-Length took the process
	// from 85 MB to 935 MB. Nothing of the kind may be reserved now.
	if grew := (peak.Load() - int64(baseRSS)) / 1024; grew > 100 {
		t.Errorf("resident memory grew by %d MiB during %d unauthenticated streams (from %d MiB)", grew, streams, baseRSS/1024)
	}
	c.CloseIdleConnections()
	deadline := time.Now().Add(10 * time.Second)
	n := goroutines(t, g)
	for n > baseG+20 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		n = goroutines(t, g)
	}
	if n > baseG+20 {
		t.Errorf("%d goroutines remain after the streams closed (%d before)", n, baseG)
	}
	t.Logf("%d streams answered; peak RSS %d MiB (base %d MiB); goroutines %d -> %d", streams, peak.Load()/1024, baseRSS/1024, baseG, n)
}

// trickle is a body that sends one byte a second, as the slow-body attack
// did; it counts what it sent.
type trickle struct {
	b    []byte
	sent atomic.Int64
	done chan struct{}
}

func (tr *trickle) Read(p []byte) (int, error) {
	i := tr.sent.Load()
	if i >= int64(len(tr.b)) {
		return 0, io.EOF
	}
	if i > 0 {
		select {
		case <-tr.done:
			return 0, errors.New("test over")
		case <-time.After(time.Second):
		}
	}
	p[0] = tr.b[i]
	tr.sent.Add(1)
	return 1, nil
}

// TestSlowSignedBodyIsCut: a properly signed request whose body trickles
// in at a byte a second is cut by the server's body timeouts (here
// OBGW_READ_BODY=3s) over HTTP/2 and HTTP/1.1, instead of holding its
// stream or connection for as long as the client likes.
func TestSlowSignedBodyIsCut(t *testing.T) {
	g := startGateway(t, "Caddyfile", "OBGW_READ_BODY=3s")
	for _, proto := range []string{"h2", "http/1.1"} {
		t.Run(proto, func(t *testing.T) {
			c := client(nil)
			if proto == "http/1.1" {
				tr := transport(c)
				tr.ForceAttemptHTTP2 = false
				tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
			}
			c.Timeout = 60 * time.Second
			body := &trickle{b: paymentBody, done: make(chan struct{})}
			defer close(body.done)
			req := newRequest(t, g, http.MethodPost, "/v1/payments/sepa-credit-transfers", nil)
			req.Header.Set("PSU-IP-Address", "192.0.2.10")
			req.Header.Set("Content-Type", "application/json")
			if err := signer(t, "tpp").Sign(req, paymentBody); err != nil {
				t.Fatal(err)
			}
			req.Body, req.ContentLength = io.NopCloser(body), int64(len(paymentBody))
			badRequest(req) // the body trickles: the checks must not wait for it
			start := time.Now()
			resp, err := c.Do(req)
			elapsed := time.Since(start)
			if err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode < 400 {
					t.Fatalf("a trickled body was accepted: %d %s", resp.StatusCode, b)
				}
				t.Logf("answered %d %s after %v, %d of %d bytes sent", resp.StatusCode, b, elapsed.Round(time.Millisecond), body.sent.Load(), len(paymentBody))
			} else {
				t.Logf("stream closed after %v (%v), %d of %d bytes sent", elapsed.Round(time.Millisecond), err, body.sent.Load(), len(paymentBody))
			}
			// The whole body would take len(paymentBody) seconds; the
			// server must have given up long before.
			if elapsed > 15*time.Second || body.sent.Load() >= int64(len(paymentBody)) {
				t.Fatalf("the trickle held the %s stream for %v (%d bytes sent)", proto, elapsed, body.sent.Load())
			}
		})
	}
}

// TestProductionByDefault: without OBGW_ENV the shipped Caddyfile is a
// production deployment: no mock SCA, no sandbox operations (and without
// an identity provider it does not start: TestProductionNeedsSCAProvider).
func TestProductionByDefault(t *testing.T) {
	g := startGateway(t, "Caddyfile", append(databaseEnv(t, "sqlite"), productionIdPEnv()...)...)
	c := client(nil)
	req := newRequest(t, g, http.MethodPost, "/v1/sandbox/initialize", nil)
	req.Header.Del("TPP-Redirect-URI")
	if err := g.signer(t, "tpp").Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	if got := send(t, c, req); got.status != http.StatusNotFound {
		t.Fatalf("sandbox initialize without OBGW_ENV: %d %s", got.status, got.body)
	}
	req = newRequest(t, g, http.MethodGet, "/v1/accounts", nil)
	if err := g.signer(t, "tpp").Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	got := send(t, c, req)
	href := got.err.Links["scaRedirect"].Href
	if got.err.code() != "CONSENT_INVALID" || href == "" {
		t.Fatalf("accounts without consent: %d %s", got.status, got.body)
	}
	page := newRequest(t, g, http.MethodGet, href, nil)
	resp, err := c.Do(page)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || strings.Contains(string(b), "customerNumber") || !strings.Contains(string(b), `id="login"`) {
		t.Fatalf("the SCA page of a deployment without OBGW_ENV: %d %s: want the bank's login, not the sandbox's mock identification", resp.StatusCode, b)
	}
	// Nor does the PSU's page of consents.
	resp, err = c.Do(browserRequest(t, http.MethodGet, "https://"+g.addr+"/v1/psu/consents", nil))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || strings.Contains(string(b), "customerNumber") || !strings.Contains(string(b), `id="login"`) {
		t.Fatalf("the PSU's page of consents without OBGW_ENV: %d %s: want the bank's login", resp.StatusCode, b)
	}
}

// TestListenerBindsWhatItSays: OBGW_LISTEN=localhost:<port> listens on the
// loopback only, not on every interface.
func TestListenerBindsWhatItSays(t *testing.T) {
	var other net.IP
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			other = n.IP
			break
		}
	}
	if other == nil {
		t.Skip("this machine has no non-loopback IPv4 address to try")
	}
	g := startGateway(t, "Caddyfile")
	_, port, _ := net.SplitHostPort(g.addr)
	c, err := net.DialTimeout("tcp", net.JoinHostPort(other.String(), port), 2*time.Second)
	if err == nil {
		c.Close()
		t.Fatalf("the gateway for %s also accepts connections on %s", g.addr, other)
	}
}

// TestSecretsStayOutOfTheAdminAPI: the context key (from the environment
// or a file) is not in the configuration the admin endpoint serves, and
// nothing is autosaved; the key is still the one that signs the tokens,
// as the split deployment with a separate backend shows.
func TestSecretsStayOutOfTheAdminAPI(t *testing.T) {
	raw := make([]byte, 32)
	_, _ = rand.Read(raw)
	key := base64.StdEncoding.EncodeToString(raw)
	keyFile := filepath.Join(t.TempDir(), "context.key")
	if err := os.WriteFile(keyFile, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, env := range map[string][]string{
		"env":  {"OBGW_CONTEXT_KEY=" + key},
		"file": {"OBGW_CONTEXT_KEY_FILE=" + keyFile},
	} {
		t.Run(name, func(t *testing.T) {
			config := t.TempDir()
			bport := freePort(t)
			db := databaseEnv(t, "sqlite")
			startBackend(t, "testdata/split/backend.Caddyfile", bport, append(append(db, env...), "XDG_CONFIG_HOME="+config)...)
			g := startGateway(t, "Caddyfile", append(env, "XDG_CONFIG_HOME="+config, "OBGW_BACKEND=proxy", "OBGW_BACKEND_URL="+backendURL(bport))...)
			resp, err := http.Get("http://" + g.admin + "/config/")
			if err != nil {
				t.Fatal(err)
			}
			cfg, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(cfg), `"obgw"`) {
				t.Fatalf("admin config: %d %.200s", resp.StatusCode, cfg)
			}
			if strings.Contains(string(cfg), key) {
				t.Fatal("the admin API serves the context key")
			}
			// The backend accepts the gateway's tokens: both read the key.
			req := newRequest(t, g, http.MethodGet, "/v1/accounts", nil)
			if err := signer(t, "tpp").Sign(req, nil); err != nil {
				t.Fatal(err)
			}
			if got := send(t, client(nil), req); got.err.code() != "CONSENT_INVALID" {
				t.Fatalf("through gateway and backend: %d %s", got.status, got.body)
			}
			matches, _ := filepath.Glob(filepath.Join(config, "*", "autosave.json"))
			if len(matches) > 0 {
				t.Fatalf("the configuration was autosaved: %v", matches)
			}
		})
	}
}

// TestAccessLogTreatsPSUIdentifiersAlike: every PSU identifier a request
// or an SCA redirect carries is hashed (the IP address masked), none is
// logged in clear; the psu-id of the redirect's Location and the PSU-ID of
// later requests hash alike.
func TestAccessLogTreatsPSUIdentifiersAlike(t *testing.T) {
	g := startGateway(t, "Caddyfile", databaseEnv(t, "sqlite")...)
	s, _ := consented(t, g)
	device, geo, agent := uuid.NewString(), "GEO:59.911491,10.757933", "Mozilla/5.0 (obgw-test-agent)"
	req := newRequest(t, g, http.MethodGet, "/v1/accounts", nil)
	req.Header.Set("TPP-Session-ID", s.sid)
	req.Header.Set("PSU-ID", s.psuID)
	req.Header.Set("PSU-IP-Address", "192.0.2.10")
	// Below Linux's ephemeral ports, so no client's remote_port is it.
	req.Header.Set("PSU-IP-Port", "31337")
	req.Header.Set("PSU-Device-ID", device)
	req.Header.Set("PSU-Geo-Location", geo)
	req.Header.Set("PSU-User-Agent", agent)
	if err := signer(t, "tpp").Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	if got := send(t, client(nil), req); got.status != 200 {
		t.Fatalf("%d %s", got.status, got.body)
	}
	id := req.Header.Get("X-Request-ID")
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(g.logs(), id) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	logs := g.logs()
	if !strings.Contains(logs, id) {
		t.Fatal("the request was not access-logged")
	}
	// Each as a whole (quoted) value: its digits alone can occur in a
	// timestamp or a duration (0.000752123 held 52123).
	for what, v := range map[string]string{"PSU-ID": s.psuID, "TPP-Session-ID": s.sid, "PSU-Device-ID": device,
		"PSU-Geo-Location": "59.911491,10.757933", "PSU-User-Agent": "obgw-test-agent", "PSU-IP-Port": `"31337"`} {
		if strings.Contains(logs, v) {
			t.Errorf("the access log holds the %s in clear", what)
		}
	}
	// The redirect's psu-id was logged hashed, as the request's PSU-ID.
	var psuHash string
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, id) {
			var entry struct {
				Request struct {
					Headers map[string][]string `json:"headers"`
				} `json:"request"`
			}
			if err := json.Unmarshal([]byte(line), &entry); err == nil && len(entry.Request.Headers["Psu-Id"]) == 1 {
				psuHash = entry.Request.Headers["Psu-Id"][0]
			}
		}
	}
	if psuHash == "" || !strings.Contains(logs, "psu-id="+psuHash) {
		t.Errorf("the SCA redirect's psu-id is not logged as the same hash %q as the request's PSU-ID", psuHash)
	}
}

// TestOversizedHeadersGetABerlinGroupError: a header block over the
// gateway's bound (48 KiB) but within the server's (64 KiB) is answered
// 431 with an error body, not the HTTP server's bare page.
func TestOversizedHeadersGetABerlinGroupError(t *testing.T) {
	g := startGateway(t, "Caddyfile")
	for _, proto := range []string{"h2", "http/1.1"} {
		c := client(nil)
		if proto == "http/1.1" {
			tr := transport(c)
			tr.ForceAttemptHTTP2 = false
			tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
		}
		req := newRequest(t, g, http.MethodGet, "/v1/accounts", nil)
		req.Header.Set("X-Padding", strings.Repeat("p", 50<<10))
		if err := signer(t, "tpp").Sign(req, nil); err != nil {
			t.Fatal(err)
		}
		got := send(t, c, req)
		if got.status != http.StatusRequestHeaderFieldsTooLarge || got.err.code() != "FORMAT_ERROR" {
			t.Fatalf("%s: %d %s", proto, got.status, got.body)
		}
	}
}

// batchSchedulers counts the goroutines running payment batch schedules in
// the gateway, from its admin endpoint's goroutine dump.
func batchSchedulers(t *testing.T, g *gateway) int {
	t.Helper()
	resp, err := http.Get("http://" + g.admin + "/debug/pprof/goroutine?debug=2")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	dump, _ := io.ReadAll(resp.Body)
	return strings.Count(string(dump), "backend.RunBatches(")
}

// TestOneBatchSchedulerPerProcess: the shipped Caddyfile has an
// obgw_backend handler per route family, all on one database; the obgw app
// runs one batch scheduler for it, and a config reload hands over to the
// new configuration's without leaving the old one running.
func TestOneBatchSchedulerPerProcess(t *testing.T) {
	g := startGateway(t, "Caddyfile", databaseEnv(t, "sqlite")...)
	if n := batchSchedulers(t, g); n != 1 {
		t.Fatalf("%d batch schedulers running, want 1", n)
	}
	reload(t, g)
	deadline := time.Now().Add(5 * time.Second)
	n := batchSchedulers(t, g)
	for n != 1 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		n = batchSchedulers(t, g)
	}
	if n != 1 {
		t.Fatalf("%d batch schedulers after a reload, want 1", n)
	}
}

// TestWarnsWhenThePortIsServedTwice (issue 19): a second obgw started on
// the port another one serves binds beside it (Caddy's listeners use
// SO_REUSEPORT) and says so at error level, naming the port and the other
// process, rather than silently splitting the TPPs' connections.
func TestWarnsWhenThePortIsServedTwice(t *testing.T) {
	port := freePort(t)
	first := start(t, "Caddyfile", port, true, fmt.Sprintf("OBGW_LISTEN=localhost:%d", port))
	second := start(t, "Caddyfile", port, true, fmt.Sprintf("OBGW_LISTEN=localhost:%d", port))
	want := fmt.Sprintf("port %d (pid %d)", port, first.cmd.Process.Pid)
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(second.logs(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("the second obgw on port %d did not warn naming %q:\n%s", port, want, second.logs())
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !strings.Contains(second.logs(), `"level":"error"`) || !strings.Contains(second.logs(), "another process listens on a port this obgw serves") {
		t.Fatalf("the warning is not at error level:\n%s", second.logs())
	}
}

// TestBodySharePerTPP (issue 34, 1): one TPP that opens many connections,
// each announcing a 1 MiB payment, sending most of it at once and then
// holding the rest back, holds its share of the body memory
// (OBGW_BODY_SHARE, 4 MiB here of 8 MiB) and no more: its further bodies
// are refused (503, Retry-After), and another TPP's payment is accepted
// meanwhile. Without the shares, the first TPP held all 8 MiB and the
// other's payment got 503.
func TestBodySharePerTPP(t *testing.T) {
	g := startGateway(t, "Caddyfile", append(databaseEnv(t, "sqlite"), "OBGW_BODY_MEMORY=8MiB", "OBGW_BODY_SHARE=4MiB")...)
	addr := strings.Replace(g.addr, "localhost", "127.0.0.1", 1)
	const size = 1 << 20
	body := append([]byte(`{"remittanceInformationUnstructured":"`), bytes.Repeat([]byte("x"), size-40)...)
	body = append(body, `"}`...)
	sent := body[:size-48<<10] // most of it: the rest never comes
	type answer struct {
		status int
		text   string
	}
	answers := make(chan answer, 12)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 12 {
		req := newRequest(t, g, http.MethodPost, "/v1/payments/sepa-credit-transfers", nil)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("PSU-IP-Address", "192.0.2.10")
		if err := signer(t, "rsa3072").Sign(req, body); err != nil {
			t.Fatal(err)
		}
		conn, err := tls.Dial("tcp", addr, &tls.Config{ServerName: "localhost", RootCAs: tlsRoots, NextProtos: []string{"http/1.1"}})
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, conn)
		var head bytes.Buffer
		fmt.Fprintf(&head, "POST /v1/payments/sepa-credit-transfers HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", g.addr, len(body))
		for k, vs := range req.Header {
			for _, v := range vs {
				fmt.Fprintf(&head, "%s: %s\r\n", k, v)
			}
		}
		head.WriteString("\r\n")
		go func() {
			if _, err := conn.Write(append(head.Bytes(), sent...)); err != nil {
				return // refused and closed while sending
			}
		}()
		go func() {
			// A refusal's answer may be lost to the reset of a connection
			// the gateway closes with the body unread (Go's server waits
			// 500 ms for the client to read it first): the gateway's
			// access log counts the refusals; answers read are checked.
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			answers <- answer{resp.StatusCode, resp.Header.Get("Retry-After") + " " + string(b)}
		}()
	}
	// The bodies beyond the share are refused while at most four are held
	// (a body refused while others grow gives its bytes back).
	refused := func() int { return strings.Count(g.logs(), `"status":503,`) }
	for deadline := time.Now().Add(10 * time.Second); refused() < 12-4; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of the TPP's 12 bodies refused; its share holds 4 of them", refused())
		}
	}
	for read := false; !read; {
		select {
		case a := <-answers:
			if a.status != http.StatusServiceUnavailable || !strings.HasPrefix(a.text, "1 ") || !strings.Contains(a.text, "your share") {
				t.Fatalf("a body beyond the TPP's share: %d %s", a.status, a.text)
			}
			read = true
		case <-time.After(5 * time.Second):
			t.Fatal("no refusal's answer was read")
		}
	}
	// Another TPP's payment goes through meanwhile.
	s := &tppSession{t: t, g: g, c: client(nil), tpp: "tpp", sid: uuid.NewString()}
	payment := []byte(`{"instructedAmount":{"currency":"NOK","amount":"250.00"},"debtorAccount":{"iban":"` + bankaccount.IBAN("NO", "12031010010") +
		`"},"creditorAccount":{"iban":"` + bankaccount.IBAN("NO", "12031020016") + `"},"creditorName":"Ola Nordmann"}`)
	req := newRequest(t, g, http.MethodPost, "/v1/payments/domestic-norway-credit-transfers", payment)
	req.Header.Set("TPP-Session-ID", s.sid)
	req.Header.Set("PSU-IP-Address", "192.0.2.10")
	if err := signer(t, "tpp").Sign(req, payment); err != nil {
		t.Fatal(err)
	}
	if got := send(t, s.c, req); got.status != http.StatusCreated {
		t.Fatalf("another TPP's payment while the first holds its share: %d %s", got.status, got.body)
	}
	for {
		select {
		case a := <-answers:
			if a.status != http.StatusServiceUnavailable || !strings.Contains(a.text, "your share") {
				t.Fatalf("a body of the TPP: %d %s", a.status, a.text)
			}
		default:
			return
		}
	}
}

// TestBodyShareFitsMaxBody: a body share too small for a route's
// max_body (1 MiB in the shipped policies) is a configuration error that
// names both settings, not a route whose largest bodies are always 503.
func TestBodyShareFitsMaxBody(t *testing.T) {
	out, err := productionCommand(t, "validate", "OBGW_BODY_SHARE=512KiB").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "max_body 1.0 MiB does not fit in a TPP's share of the body memory (the obgw app's body_share, 512 KiB)") {
		t.Fatalf("validate with body_share below max_body: %v\n%s", err, out)
	}
	if out, err := productionCommand(t, "validate", "OBGW_BODY_SHARE=2MiB").CombinedOutput(); err != nil {
		t.Fatalf("validate with body_share above max_body: %v\n%s", err, out)
	}
}

// TestReloadKeepsTheAdminSocket (issue 33, 1): obgw started with its
// admin endpoint on a unix socket in a directory that does not exist yet
// makes the directory; a reload whose environment lacks OBGW_ADMIN (the
// configuration's admin endpoint then TCP localhost:2019) sent to the
// socket is refused, naming both, and the socket stays; with OBGW_ADMIN
// as the instance was started, the reload goes through.
func TestReloadKeepsTheAdminSocket(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "run", "obgw", "admin.sock")
	g := startGateway(t, "Caddyfile", "OBGW_DATA_DIR="+t.TempDir(), "OBGW_ADMIN=unix/"+sock+"|0600")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no admin socket at %s:\n%s", sock, g.logs())
		}
	}
	reloadWith := func(admin string) (string, error) {
		var env []string
		for _, e := range g.cmd.Env {
			if !strings.HasPrefix(e, "OBGW_ADMIN=") {
				env = append(env, e)
			}
		}
		if admin != "" {
			env = append(env, "OBGW_ADMIN="+admin)
		}
		cmd := exec.Command(binary, "reload", "--config", "Caddyfile", "--adapter", "caddyfile", "--address", "unix/"+sock)
		cmd.Dir, cmd.Env = repoRoot, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := reloadWith("")
	if err == nil || !strings.Contains(out, "obgw reload: refused") || !strings.Contains(out, "localhost:2019") {
		t.Fatalf("a reload that would move the admin endpoint onto TCP: %v\n%s", err, out)
	}
	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("the admin socket is gone after a refused reload: %v", err)
	}
	if out, err := reloadWith("unix/" + sock + "|0600"); err != nil || strings.Contains(out, "refused") {
		t.Fatalf("a reload with the instance's OBGW_ADMIN: %v\n%s", err, out)
	}
	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("the admin socket is gone after the reload: %v", err)
	}
	if got := send(t, client(nil), newRequest(t, g, http.MethodGet, "/healthz", nil)); got.status != 200 {
		t.Fatalf("the gateway after the reloads: %d", got.status)
	}
}
