package integration

import (
	"encoding/json"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/obgw/obgw/backend/sandbox"
)

// redisURL is the test Redis; CI starts it. An unreachable Redis fails
// the test unless OBGW_SKIP_REDIS=1.
func redisURL(t *testing.T) string {
	if os.Getenv("OBGW_SKIP_REDIS") == "1" {
		t.Skip("OBGW_SKIP_REDIS=1")
	}
	if u := os.Getenv("OBGW_TEST_REDIS_URL"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/0"
}

// consented runs a consent for Kari through gateway g and returns the TPP
// session (with PSU-ID) and the first account's id.
func consented(t *testing.T, g *gateway) (*tppSession, string) {
	t.Helper()
	s := &tppSession{t: t, g: g, c: client(nil), tpp: "tpp", sid: uuid.NewString()}
	got := s.call("POST", "/v1/bank-offered-consents", true)
	var created struct {
		Links map[string]struct{ Href string } `json:"_links"`
	}
	if got.status != 201 || json.Unmarshal(got.body, &created) != nil {
		t.Fatalf("consent: %d %s", got.status, got.body)
	}
	q := psuBrowser(t, g, created.Links["scaRedirect"].Href, sandbox.KariNumber, 1)
	s.psuID = q.Get("psu-id")
	got = s.call("GET", "/v1/accounts", true)
	var list struct {
		Accounts []struct {
			ResourceID string `json:"resourceId"`
		} `json:"accounts"`
	}
	if got.status != 200 || json.Unmarshal(got.body, &list) != nil || len(list.Accounts) != 1 {
		t.Fatalf("accounts: %d %s", got.status, got.body)
	}
	return s, list.Accounts[0].ResourceID
}

// TestPSUNotPresentLimit: 4 balance calls per 24 h without the PSU, the 5th
// refused with 429 and Retry-After; PSU-present calls are not limited;
// transactions have their own count. In memory and in Redis.
func TestPSUNotPresentLimit(t *testing.T) {
	for _, kind := range []string{"memory", "redis"} {
		t.Run(kind, func(t *testing.T) {
			env := databaseEnv(t, "sqlite")
			if kind == "redis" {
				env = append(env, "OBGW_REDIS_URL="+redisURL(t))
			}
			g := startGateway(t, "Caddyfile", env...)
			s, account := consented(t, g)
			balances := "/v1/accounts/" + account + "/balances"
			for i := 1; i <= 4; i++ {
				if got := s.call("GET", balances, false); got.status != 200 {
					t.Fatalf("call %d: %d %s", i, got.status, got.body)
				}
			}
			got := s.call("GET", balances, false)
			retry, _ := strconv.Atoi(got.header.Get("Retry-After"))
			if got.status != 429 || got.err.code() != "ACCESS_EXCEEDED" || retry < 86000 || retry > 86400 {
				t.Fatalf("5th call: %d Retry-After %q %s", got.status, got.header.Get("Retry-After"), got.body)
			}
			// Refused calls do not count, and the PSU present is not limited.
			if got := s.call("GET", balances, true); got.status != 200 {
				t.Fatalf("PSU present: %d %s", got.status, got.body)
			}
			// Transactions (and details) have their own count.
			for i := 1; i <= 4; i++ {
				if got := s.call("GET", "/v1/accounts/"+account+"/transactions", false); got.status != 200 {
					t.Fatalf("transactions call %d: %d %s", i, got.status, got.body)
				}
			}
			if got := s.call("GET", "/v1/accounts/"+account+"/transactions/enc!!x", false); got.status != 429 {
				t.Fatalf("details after 4 transaction calls: %d %s", got.status, got.body)
			}
			// Unlimited routes are unaffected.
			if got := s.call("GET", "/v1/accounts", false); got.status != 200 {
				t.Fatalf("account list: %d %s", got.status, got.body)
			}
		})
	}
}

// twoGatewaysOnOneRedis starts two gateways on one Redis and one database
// and returns a consented TPP session on each and the balances path of the
// consented account.
func twoGatewaysOnOneRedis(t *testing.T) (s1, s2 *tppSession, balances string) {
	t.Helper()
	env := append(databaseEnv(t, "sqlite"), "OBGW_REDIS_URL="+redisURL(t))
	g1 := startGateway(t, "Caddyfile", env...)
	g2 := startGateway(t, "Caddyfile", env...)
	s1, account := consented(t, g1)
	s2 = &tppSession{t: t, g: g2, c: s1.c, tpp: s1.tpp, sid: s1.sid, psuID: s1.psuID}
	return s1, s2, "/v1/accounts/" + account + "/balances"
}

// TestLimitSharedByTwoGateways: two gateway processes on one Redis (and one
// database) enforce one limit: 4 calls spread over both, the 5th refused
// by either.
func TestLimitSharedByTwoGateways(t *testing.T) {
	s1, s2, balances := twoGatewaysOnOneRedis(t)
	for i, s := range []*tppSession{s1, s2, s1, s2} {
		if got := s.call("GET", balances, false); got.status != 200 {
			t.Fatalf("call %d: %d %s", i+1, got.status, got.body)
		}
	}
	for _, s := range []*tppSession{s1, s2} {
		if got := s.call("GET", balances, false); got.status != 429 {
			t.Fatalf("5th call on %s: %d %s", s.g.addr, got.status, got.body)
		}
	}
}

// TestRedisDown: with Redis unreachable, limited routes fail closed with
// 503 by default while unlimited routes keep working (replay protection
// falls back to the instance's memory).
func TestRedisDown(t *testing.T) {
	g := startGateway(t, "Caddyfile", append(databaseEnv(t, "sqlite"), "OBGW_REDIS_URL=redis://127.0.0.1:1/0")...)
	s, account := consented(t, g)
	if got := s.call("GET", "/v1/accounts/"+account+"/balances", false); got.status != 503 || got.err.code() != "SERVICE_UNAVAILABLE" {
		t.Fatalf("limited route: %d %s", got.status, got.body)
	}
	if got := s.call("GET", "/v1/accounts", false); got.status != 200 {
		t.Fatalf("unlimited route: %d %s", got.status, got.body)
	}
	// Readiness says what is down.
	if got := send(t, client(nil), newRequest(t, g, http.MethodGet, "/readyz", nil)); got.status != 503 ||
		!strings.Contains(string(got.body), "redis") || strings.Contains(string(got.body), "database") {
		t.Fatalf("readyz with Redis down: %d %s", got.status, got.body)
	}
	// Replay protection still holds on this instance.
	req := newRequest(t, g, http.MethodGet, "/v1/accounts", nil)
	req.Header.Set("TPP-Session-ID", s.sid)
	req.Header.Set("PSU-ID", s.psuID)
	if err := signer(t, "tpp").Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	if got := send(t, s.c, req); got.status != 200 {
		t.Fatalf("first: %d %s", got.status, got.body)
	}
	if got := send(t, s.c, req.Clone(req.Context())); got.status != 400 {
		t.Fatalf("replay while Redis is down: %d %s", got.status, got.body)
	}
}

// TestRefusedCallsDoNotCount (issue 14, 8): calls the backend refuses give
// back their place in the PSU-not-present limit, whichever of two gateways
// on one Redis counted them: four refused calls, then four served ones,
// then the fifth served one is 429.
func TestRefusedCallsDoNotCount(t *testing.T) {
	s1, s2, balances := twoGatewaysOnOneRedis(t)
	// A PSU-Corporate-ID that names no agreement of the PSU: the backend
	// refuses the call (400 CORPORATE_ID_INVALID) after the gateway let it
	// through.
	for i, s := range []*tppSession{s1, s2, s1, s2} {
		s.corpID = "6f1c1b7e-0000-4000-8000-000000000000"
		got := s.call("GET", balances, false)
		s.corpID = ""
		if got.status != 400 || got.err.code() != "CORPORATE_ID_INVALID" {
			t.Fatalf("refused call %d: %d %s", i+1, got.status, got.body)
		}
	}
	for i, s := range []*tppSession{s2, s1, s2, s1} {
		if got := s.call("GET", balances, false); got.status != 200 {
			t.Fatalf("served call %d after 4 refused ones: %d %s", i+1, got.status, got.body)
		}
	}
	if got := s2.call("GET", balances, false); got.status != 429 {
		t.Fatalf("5th served call: %d %s", got.status, got.body)
	}
}
