package integration

import (
	"net/http"
	"strings"
	"testing"

	"github.com/obgw/obgw/backend/sandbox"
)

// TestSandboxThroughGateway: the mock-data operations are signed like every
// route but need no TPP-Redirect-URI; they exist only in sandbox.
func TestSandboxThroughGateway(t *testing.T) {
	for _, env := range []string{"sandbox", "production"} {
		t.Run(env, func(t *testing.T) {
			vars := append(databaseEnv(t, "sqlite"), "OBGW_ENV="+env)
			if env == "production" {
				vars = append(vars, productionIdPEnv()[1:]...)
			}
			g := startGateway(t, "Caddyfile", vars...)
			c := client(nil)
			req := newRequest(t, g, http.MethodPost, "/v1/sandbox/initialize", nil)
			req.Header.Del("TPP-Redirect-URI")
			if err := g.signer(t, "tpp").Sign(req, nil); err != nil {
				t.Fatal(err)
			}
			got := send(t, c, req)
			if env == "production" {
				if got.status != 404 || got.err.code() != "RESOURCE_UNKNOWN" {
					t.Fatalf("production: %d %s", got.status, got.body)
				}
				return
			}
			if got.status != 200 || !strings.Contains(string(got.body), `"customerNumber":"`+sandbox.KariNumber+`"`) {
				t.Fatalf("initialize: %d %s", got.status, got.body)
			}
			body := []byte(`{"customerNumber":"01019912345","name":"Test Testperson","type":"private"}`)
			req = newRequest(t, g, http.MethodPost, "/v1/sandbox/customers", body)
			req.Header.Del("TPP-Redirect-URI")
			if err := g.signer(t, "tpp").Sign(req, body); err != nil {
				t.Fatal(err)
			}
			if got := send(t, c, req); got.status != 201 || !strings.Contains(string(got.body), `"customerType":"PRIVATE"`) {
				t.Fatalf("create customer: %d %s", got.status, got.body)
			}
		})
	}
}
