package integration

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
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
			badRequest(req) // no Digest
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

// TestTPPContactsExport (issue 14, 12): the bank's operators list every
// TPP's contacts on the admin endpoint and with obgw tpp-contacts export;
// the public listener does not serve that list.
func TestTPPContactsExport(t *testing.T) {
	dir := t.TempDir()
	g := startGateway(t, "Caddyfile", "OBGW_DATA_DIR="+dir)
	body := []byte(`{"emailAddresses":["drift@tpp.example","noc@tpp.example"]}`)
	req := newRequest(t, g, "PUT", "/v1/tpp-contacts", body)
	req.Header.Del("TPP-Redirect-URI")
	if err := signer(t, "tpp").Sign(req, body); err != nil {
		t.Fatal(err)
	}
	if got := send(t, client(nil), req); got.status != 200 {
		t.Fatalf("PUT: %d %s", got.status, got.body)
	}
	resp, err := http.Get("http://" + g.admin + "/obgw/tpp-contacts?format=json")
	if err != nil {
		t.Fatal(err)
	}
	admin, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(admin), `"PSDNO-FSA-987654321"`) || !strings.Contains(string(admin), "noc@tpp.example") {
		t.Fatalf("admin export: %d %s", resp.StatusCode, admin)
	}
	pub := newRequest(t, g, "GET", "/obgw/tpp-contacts", nil)
	if got := send(t, client(nil), pub); got.status != 404 || strings.Contains(string(got.body), "drift@") {
		t.Fatalf("the public listener answers the operators' list: %d %s", got.status, got.body)
	}
	out, err := exec.Command(binary, "tpp-contacts", "export", "--data-dir", dir, "--format", "csv").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PSDNO-FSA-987654321,drift@tpp.example;noc@tpp.example,") {
		t.Fatalf("obgw tpp-contacts export: %v\n%s", err, out)
	}
	if out, err := exec.Command(binary, "tpp-contacts", "export", "--data-dir", t.TempDir()).CombinedOutput(); err == nil {
		t.Fatalf("export from a directory without a database succeeded: %s", out)
	}
}
