package integration

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
)

// TestTPPContactsThroughGateway registers, reads and deletes a TPP's
// contact addresses through the shipped Caddyfile, signed as a TPP client
// signs: the gateway's policy (no role, no TPP-Redirect-URI, Digest on the
// body) and the backend's refusal of another TPP's id, on both stores. No
// address reaches the process's logs.
func TestTPPContactsThroughGateway(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			g := startGateway(t, "Caddyfile", databaseEnv(t, kind)...)
			c := client(nil)
			call := func(tpp, method, path, body string) response {
				t.Helper()
				var b []byte
				if body != "" {
					b = []byte(body)
				}
				req := newRequest(t, g, method, path, b)
				req.Header.Del("TPP-Redirect-URI")
				if err := signer(t, tpp).Sign(req, b); err != nil {
					t.Fatal(err)
				}
				return send(t, c, req)
			}
			type record struct {
				TPPID          string   `json:"tppId"`
				EmailAddresses []string `json:"emailAddresses"`
				LastUpdated    string   `json:"lastUpdated"`
			}
			want := func(what string, got response, addresses ...string) {
				t.Helper()
				var r record
				if got.status != 200 || json.Unmarshal(got.body, &r) != nil || r.TPPID != "PSDNO-FSA-987654321" ||
					!reflect.DeepEqual(r.EmailAddresses, addresses) || r.LastUpdated == "" {
					t.Fatalf("%s: %d %s", what, got.status, got.body)
				}
			}

			if got := call("tpp", "GET", "/v1/tpp-contacts", ""); got.status != 404 || got.err.code() != "RESOURCE_UNKNOWN" {
				t.Fatalf("GET before PUT: %d %s", got.status, got.body)
			}
			want("PUT", call("tpp", "PUT", "/v1/tpp-contacts", `{"emailAddresses":["drift@tpp.example","noc@tpp.example"]}`),
				"drift@tpp.example", "noc@tpp.example")
			want("PUT with tppId without PSD", call("tpp", "PUT", "/v1/tpp-contacts", `{"tppId":"NO-FSA-987654321","emailAddresses":["drift@tpp.example"]}`),
				"drift@tpp.example")
			want("GET with tppId", call("tpp", "GET", "/v1/tpp-contacts?tppId=NO-FSA-987654321", ""), "drift@tpp.example")
			want("GET", call("tpp", "GET", "/v1/tpp-contacts", ""), "drift@tpp.example")

			// Another TPP's id is refused, both ways round.
			if got := call("tpp", "PUT", "/v1/tpp-contacts", `{"tppId":"PSDNO-FSA-987654322","emailAddresses":["evil@tpp.example"]}`); got.status != 403 ||
				got.err.code() != "RESOURCE_UNKNOWN" || got.err.TPPMessages[0].Path != "$.tppId" {
				t.Fatalf("PUT naming another TPP: %d %s", got.status, got.body)
			}
			if got := call("aisp", "GET", "/v1/tpp-contacts?tppId=PSDNO-FSA-987654321", ""); got.status != 403 || got.err.code() != "RESOURCE_UNKNOWN" {
				t.Fatalf("GET of another TPP's contacts: %d %s", got.status, got.body)
			}
			if got := call("aisp", "DELETE", "/v1/tpp-contacts?tppId=NO-FSA-987654321", ""); got.status != 403 {
				t.Fatalf("DELETE of another TPP's contacts: %d %s", got.status, got.body)
			}
			if got := call("aisp", "GET", "/v1/tpp-contacts", ""); got.status != 404 {
				t.Fatalf("another TPP sees contacts: %d %s", got.status, got.body)
			}
			want("GET after refusals", call("tpp", "GET", "/v1/tpp-contacts", ""), "drift@tpp.example")

			// The gateway's policy: a registered TPP, and Digest on the body.
			if got := call("unregistered", "GET", "/v1/tpp-contacts", ""); got.status != 401 || got.err.code() != "CERTIFICATE_BLOCKED" {
				t.Fatalf("unregistered TPP: %d %s", got.status, got.body)
			}
			body := []byte(`{"emailAddresses":["unsigned@tpp.example"]}`)
			req := newRequest(t, g, "PUT", "/v1/tpp-contacts", body)
			req.Header.Del("TPP-Redirect-URI")
			if err := signer(t, "tpp").Sign(req, nil); err != nil {
				t.Fatal(err)
			}
			req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
			if got := send(t, c, req); got.status != 400 || got.err.code() != "FORMAT_ERROR" || !containsFold(got.err.TPPMessages[0].Text, "digest") {
				t.Fatalf("PUT without Digest: %d %s", got.status, got.body)
			}

			if got := call("tpp", "DELETE", "/v1/tpp-contacts?tppId=PSDNO-FSA-987654321", ""); got.status != 204 {
				t.Fatalf("DELETE: %d %s", got.status, got.body)
			}
			if got := call("tpp", "GET", "/v1/tpp-contacts", ""); got.status != 404 {
				t.Fatalf("GET after DELETE: %d %s", got.status, got.body)
			}
			if got := call("tpp", "DELETE", "/v1/tpp-contacts", ""); got.status != 404 || got.err.code() != "RESOURCE_UNKNOWN" {
				t.Fatalf("DELETE twice: %d %s", got.status, got.body)
			}

			logs := g.logs()
			if !strings.Contains(logs, "/v1/tpp-contacts") {
				t.Fatalf("no access log of the calls:\n%s", logs)
			}
			for _, a := range []string{"drift@", "noc@", "evil@", "unsigned@"} {
				if strings.Contains(logs, a) {
					t.Fatalf("an address (%s...) reached the logs", a)
				}
			}
		})
	}
}
