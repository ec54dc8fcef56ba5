package integration

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/obgw/obgw/backend/sandbox"
)

// TestBasePath (issue 16): the shipped Caddyfile serves the dialect's
// tooling under /api-sandbox/v1/...: signatures over (request-target) of
// the request line as sent verify, the scaRedirect, the SCA pages and the
// answers' links keep the base path, and a PSU walks the whole consent
// under it.
func TestBasePath(t *testing.T) {
	g := startGateway(t, "Caddyfile", databaseEnv(t, "sqlite")...)
	s := &tppSession{t: t, g: g, c: client(nil), tpp: "tpp", sid: uuid.NewString()}
	got := s.call("GET", "/api-sandbox/v1/accounts", true)
	href := got.err.Links["scaRedirect"].Href
	if got.status != 401 || !strings.HasPrefix(href, "/api-sandbox/v1/sca/s/") {
		t.Fatalf("without consent under the base path: %d %s", got.status, got.body)
	}
	got = s.call("POST", "/api-sandbox/v1/bank-offered-consents", true)
	var created struct {
		ConsentID string `json:"consentId"`
		Links     map[string]struct {
			Href string `json:"href"`
		} `json:"_links"`
	}
	if got.status != 201 || json.Unmarshal(got.body, &created) != nil {
		t.Fatalf("consent under the base path: %d %s", got.status, got.body)
	}
	for name, l := range created.Links {
		if !strings.HasPrefix(l.Href, "/api-sandbox/v1/") {
			t.Errorf("link %s = %s, want it under /api-sandbox", name, l.Href)
		}
	}
	// The sealed link of the first answer, walked in a browser: its
	// redirect and the page's form stay under the base path.
	q := psuBrowser(t, g, href, sandbox.KariNumber, 3)
	s.psuID = q.Get("psu-id")
	if s.psuID == "" {
		t.Fatalf("redirect %v", q)
	}
	got = s.call("GET", "/api-sandbox/v1/accounts", true)
	if got.status != 200 || strings.Contains(string(got.body), `"href":"/v1/`) || !strings.Contains(string(got.body), `"href":"/api-sandbox/v1/`) {
		t.Fatalf("accounts under the base path: %d %s", got.status, got.body)
	}
	// The same consent serves /v1/... with /v1/ links.
	got = s.call("GET", "/v1/accounts", true)
	if got.status != 200 || strings.Contains(string(got.body), "/api-sandbox") {
		t.Fatalf("accounts without the base path: %d %s", got.status, got.body)
	}
	// Signed over (request-target): the request line as sent.
	req := newRequest(t, g, "GET", "/api-sandbox/v1/accounts", nil)
	req.Header.Set("TPP-Session-ID", s.sid)
	req.Header.Set("PSU-ID", s.psuID)
	req.Header.Set("PSU-IP-Address", "192.0.2.10")
	sg := signer(t, "tpp")
	sg.SignRequestTarget = true
	if err := sg.Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	if r := send(t, s.c, req); r.status != 200 {
		t.Fatalf("(request-target) signed under the base path: %d %s", r.status, r.body)
	}
}
