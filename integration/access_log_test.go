package integration

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/obgw/obgw/backend/sandbox"
)

// TestAccessLogSamplesReads (issue 15): with OBGW_LOG_SAMPLE_READS=4 the
// shipped policies log one in four successful transaction reads; every
// refused read is logged. The consent comes through the sealed scaRedirect
// of a request without consent, opened in the PSU's browser.
func TestAccessLogSamplesReads(t *testing.T) {
	g := startGateway(t, "Caddyfile", append(databaseEnv(t, "sqlite"), "OBGW_LOG_SAMPLE_READS=4")...)
	s := &tppSession{t: t, g: g, c: client(nil), tpp: "tpp", sid: uuid.NewString()}
	got := s.call("GET", "/v1/accounts", true)
	href := got.err.Links["scaRedirect"].Href
	if got.status != 401 || !strings.HasPrefix(href, "/v1/sca/s/") {
		t.Fatalf("without consent: %d %s, want 401 with a sealed scaRedirect", got.status, got.body)
	}
	q := psuBrowser(t, g, href, sandbox.KariNumber, 3)
	s.psuID = q.Get("psu-id")
	got = s.call("GET", "/v1/accounts", true)
	var list struct {
		Accounts []struct {
			ResourceID string `json:"resourceId"`
		} `json:"accounts"`
	}
	if got.status != 200 || json.Unmarshal(got.body, &list) != nil || len(list.Accounts) == 0 {
		t.Fatalf("accounts: %d %s", got.status, got.body)
	}
	read := func(path string, want int) string {
		t.Helper()
		req := newRequest(t, g, http.MethodGet, path, nil)
		req.Header.Set("TPP-Session-ID", s.sid)
		req.Header.Set("PSU-ID", s.psuID)
		req.Header.Set("PSU-IP-Address", "192.0.2.10")
		if err := signer(t, "tpp").Sign(req, nil); err != nil {
			t.Fatal(err)
		}
		if r := send(t, s.c, req); r.status != want {
			t.Fatalf("GET %s: %d %s, want %d", path, r.status, r.body, want)
		}
		return req.Header.Get("X-Request-ID")
	}
	var served, refused []string
	for range 8 {
		served = append(served, read("/v1/accounts/"+list.Accounts[0].ResourceID+"/transactions?limit=2", 200))
	}
	for range 3 {
		refused = append(refused, read("/v1/accounts/enc!!nope/transactions", 404))
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(g.logs(), refused[len(refused)-1]) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	logs := g.logs()
	logged := 0
	for _, id := range served {
		if strings.Contains(logs, id) {
			logged++
		}
	}
	if logged != 2 {
		t.Errorf("%d of 8 successful reads logged, want 2 (one in four)", logged)
	}
	for _, id := range refused {
		if !strings.Contains(logs, id) {
			t.Errorf("refused read %s not logged", id)
		}
	}
}
