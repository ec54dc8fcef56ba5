package backend

import (
	"bytes"
	"context"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/obgw/obgw/backend/pis"
	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/backend/sca"
	"github.com/obgw/obgw/tppcontext"
)

// TestSCAFunnel: Config.ObserveSCA is told each flow's steps once: a
// consent started, identified and confirmed; a payment's flow started and
// cancelled by its PSU; a sealed link's flow started when opened and
// failed on too many wrong numbers; and a flow left pending is counted
// abandoned by the sweep that deletes it, the PSU's page of consents not.
func TestSCAFunnel(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		var mu sync.Mutex
		var steps []string
		ver, _ := tppcontext.NewVerifier(bytes.Repeat([]byte{9}, 32))
		srv := New(Config{Store: h.st, Tokens: ver, Sandbox: true, Now: h.clk.now, ObserveSCA: func(step, reason string) {
			mu.Lock()
			defer mu.Unlock()
			steps = append(steps, strings.TrimSuffix(step+"/"+reason, "/"))
		}})
		h.srv.Close()
		h.srv = newTestServer(t, srv)
		t.Cleanup(h.srv.Close)
		expect := func(what string, want ...string) {
			t.Helper()
			mu.Lock()
			defer mu.Unlock()
			if !slices.Equal(steps, want) {
				t.Errorf("%s: steps %q, want %q", what, steps, want)
			}
			steps = nil
		}

		h.consent("", "s1", sandbox.KariNumber, "", 1)
		expect("a consent", "started", "identified", "confirmed")

		status, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.DomesticProduct, sid: "p", body: paymentBody("10.00", kariIBAN, olaIBAN, "")})
		if status != 201 {
			t.Fatalf("payment: %d %v", status, b)
		}
		p := h.browser()
		page := p.open(scaLink(b))
		p.submit(scaLink(b), page, url.Values{"step": {"cancel"}}).Body.Close()
		expect("a payment cancelled", "started", "failed/cancelled")

		status, b, _ = h.call(tppCall{method: "GET", path: "/v1/accounts", sid: "w", psuPresent: true})
		if status != 401 {
			t.Fatalf("accounts without consent: %d %v", status, b)
		}
		expect("a sealed link, not opened")
		p = h.browser()
		page = p.open(scaLink(b))
		for range sca.MaxIdentifyAttempts {
			resp := p.submit(scaLink(b), page, url.Values{"step": {"identify"}, "customerNumber": {"00000000000"}})
			page = body(resp)
		}
		expect("a sealed link opened, wrong numbers", "started", "failed/too_many_attempts")

		status, b, _ = h.call(tppCall{method: "POST", path: "/v1/bank-offered-consents", sid: "left"})
		if status != 201 {
			t.Fatalf("consent: %d %v", status, b)
		}
		p = h.browser()
		page = p.open(h.psuLink(""))
		if resp := p.submit(sca.PSUBase, page, url.Values{"step": {"identify"}, "customerNumber": {sandbox.KariNumber}}); !strings.Contains(body(resp), "Kari Nordmann") {
			t.Fatal("the PSU's page of consents did not open")
		}
		expect("a consent left pending, the PSU's page of consents", "started")
		h.clk.add(sca.FlowLifetime + 25*time.Hour)
		n, ran, err := srv.Sweep(context.Background(), h.clk.now(), "test")
		if err != nil || !ran || n.Abandoned != 1 {
			t.Fatalf("sweep: %+v ran %v %v, want 1 abandoned flow", n, ran, err)
		}
	})
}
