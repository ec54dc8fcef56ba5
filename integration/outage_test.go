package integration

import (
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/obgw/obgw/backend/store/storetest"
)

// tcpProxy forwards a loopback port to a real server, and can be cut and
// restored: the server stays up for everyone else while this test's gateway
// sees it go away (connections reset, new ones refused) and come back.
type tcpProxy struct {
	target string
	addr   string
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
}

func newTCPProxy(t *testing.T, target string) *tcpProxy {
	p := &tcpProxy{target: target}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(p.cut)
	return p
}

func (p *tcpProxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, u)
			p.mu.Unlock()
			go func() { io.Copy(u, c); u.Close() }()
			go func() { io.Copy(c, u); c.Close() }()
		}
	}()
}

// cut closes the listener and every forwarded connection.
func (p *tcpProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// restore listens again on the same address.
func (p *tcpProxy) restore(t *testing.T) {
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ {
		if ln, err = net.Listen("tcp", p.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	p.serve(ln)
}

// TestPostgresOutage: with the backend's PostgreSQL unreachable, requests
// answer 503 SERVICE_UNAVAILABLE (never 500), those whose answer was in
// memory too once the instance has noticed; when it returns they are
// served again without restarting anything.
func TestPostgresOutage(t *testing.T) {
	url, _ := storetest.Schema(t, "t_outage")
	proxy := newTCPProxy(t, "127.0.0.1:5432")
	url = strings.Replace(url, "127.0.0.1:5432", proxy.addr, 1)
	g := startGateway(t, "Caddyfile", "OBGW_DATABASE_URL="+url)
	// A PSU-ID the store must look up (without one, the answer needs no
	// store: a sealed scaRedirect).
	s := &tppSession{t: t, g: g, c: client(nil), tpp: "tpp", sid: uuid.NewString(), psuID: uuid.NewString()}
	if got := s.call("GET", "/v1/accounts", true); got.status != 401 || got.err.code() != "CONSENT_INVALID" {
		t.Fatalf("before: %d %s", got.status, got.body)
	}
	proxy.cut()
	// PSU-IDs the instance has not met must be looked up: 503.
	for i := 0; i < 3; i++ {
		fresh := *s
		fresh.psuID = uuid.NewString()
		if got := fresh.call("GET", "/v1/accounts", true); got.status != 503 || got.err.code() != "SERVICE_UNAVAILABLE" {
			t.Fatalf("while down: %d %s", got.status, got.body)
		}
	}
	// The one it answered before may be answered from memory until its
	// listener has noticed the break (the access cache's lease, 0.75 s at
	// most), then no longer.
	for start := time.Now(); ; {
		got := s.call("GET", "/v1/accounts", true)
		if got.status == 503 && got.err.code() == "SERVICE_UNAVAILABLE" {
			break
		}
		if got.status != 401 || got.err.code() != "CONSENT_INVALID" || time.Since(start) > 1500*time.Millisecond {
			t.Fatalf("while down, %v after the cut: %d %s", time.Since(start), got.status, got.body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := send(t, client(nil), newRequest(t, g, http.MethodGet, "/readyz", nil)); got.status != 503 {
		t.Fatalf("readyz while the database is down: %d %s", got.status, got.body)
	}
	proxy.restore(t)
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := s.call("GET", "/v1/accounts", true)
		if got.status == 401 && got.err.code() == "CONSENT_INVALID" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not recovered: %d %s", got.status, got.body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestRedisOutageAndReturn: limited routes fail closed while Redis is
// unreachable, other routes keep working, and the limit resumes counting
// where it was when Redis returns.
func TestRedisOutageAndReturn(t *testing.T) {
	// redis://host:port/db → host:port
	proxy := newTCPProxy(t, strings.Split(redisURL(t), "/")[2])
	g := startGateway(t, "Caddyfile", append(databaseEnv(t, "sqlite"), "OBGW_REDIS_URL=redis://"+proxy.addr+"/0")...)
	s, account := consented(t, g)
	balances := "/v1/accounts/" + account + "/balances"
	for i := 0; i < 2; i++ {
		if got := s.call("GET", balances, false); got.status != 200 {
			t.Fatalf("call %d: %d %s", i, got.status, got.body)
		}
	}
	proxy.cut()
	if got := s.call("GET", balances, false); got.status != 503 {
		t.Fatalf("limited route while Redis is down: %d %s", got.status, got.body)
	}
	before := scrape(t, "http://"+g.health+"/metrics")[`obgw_check_total{check="replay",decision="error_allowed",mode="enforce"}`]
	if got := s.call("GET", "/v1/accounts", false); got.status != 200 {
		t.Fatalf("unlimited route while Redis is down: %d %s", got.status, got.body)
	}
	// The request went on by on_error replay allow, checked in this
	// instance's memory: the metric says so (issue 33, 2).
	if after := scrape(t, "http://"+g.health+"/metrics")[`obgw_check_total{check="replay",decision="error_allowed",mode="enforce"}`]; after != before+1 {
		t.Fatalf("replay error_allowed %v → %v during the outage, want one more", before, after)
	}
	proxy.restore(t)
	// Two calls were counted before the outage: two more, then refused.
	deadline := time.Now().Add(15 * time.Second)
	allowed := 0
	for allowed < 2 {
		got := s.call("GET", balances, false)
		switch {
		case got.status == 200:
			allowed++
		case got.status == 503 && time.Now().Before(deadline):
			time.Sleep(200 * time.Millisecond)
		default:
			t.Fatalf("after Redis returned: %d %s", got.status, got.body)
		}
	}
	if got := s.call("GET", balances, false); got.status != 429 {
		t.Fatalf("5th call: %d %s", got.status, got.body)
	}
	// go-redis's complaints are obgw's JSON lines naming the dependency,
	// never plain text in the log (issue 33, 2).
	for _, line := range strings.Split(g.logs(), "\n") {
		if strings.Contains(line, "redis: ") && !strings.HasPrefix(strings.TrimSpace(line), "{") {
			t.Fatalf("a plain-text line in the JSON log: %s", line)
		}
	}
}
