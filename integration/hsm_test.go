package integration

import (
	"encoding/pem"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/obgw/obgw/pkcs11key/softhsm"
)

// testHSM is the SoftHSM2 of this package's tests: one configuration,
// which this process (it generates the keys) and the gateways share.
var testHSM = sync.OnceValues(func() (*softhsm.HSM, error) {
	dir, err := os.MkdirTemp("", "obgw-softhsm")
	if err != nil {
		return nil, err
	}
	h, err := softhsm.New(dir)
	if err != nil {
		return nil, err
	}
	// SoftHSM2 reads it when the module is first initialised here.
	return h, os.Setenv("SOFTHSM2_CONF", h.Conf)
})

// TestSealInSoftHSM (issue 27): the bank's seal key generated inside a
// SoftHSM2 token, RSA and P-256, named by a PKCS #11 URI: a production
// gateway's answers are signed by it and verified by tpp-request against
// the certificate issued for it; the PIN is in neither the configuration
// the admin API serves nor the log; while the token is away, answers are
// 503 and unsigned and /readyz names bank_seal, and when it is back the
// gateway signs again without a restart.
func TestSealInSoftHSM(t *testing.T) {
	hsm, err := testHSM()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		bits int
	}{{"rsa", 2048}, {"p256", 0}} {
		t.Run(tt.name, func(t *testing.T) {
			pin := "pin-" + tt.name + "-4711"
			tok, err := hsm.InitToken("obgw-"+tt.name, pin)
			if err != nil {
				t.Fatal(err)
			}
			pub, err := tok.Generate("bank-seal", tt.bits)
			if err != nil {
				t.Fatal(err)
			}
			cert, err := productionPKI.IssueBankSeal(pub)
			if err != nil {
				t.Fatal(err)
			}
			certFile := filepath.Join(t.TempDir(), "bank-seal.pem")
			if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o644); err != nil {
				t.Fatal(err)
			}
			env := append(productionIdPEnv(), hsm.Env(), "OBGW_BANK_SEAL_CERT="+certFile, "OBGW_BANK_SEAL_KEY="+tok.URI("bank-seal"))
			if tt.bits == 0 {
				// The context tokens signed in the token too (ES256): the
				// in-process backend verifies them by the JWKS, so the
				// CONSENT_INVALID below is the backend's, past that check.
				if _, err := tok.Generate("context-token", 0); err != nil {
					t.Fatal(err)
				}
				env = append(env, "OBGW_CONTEXT_SIGNING_KEY_FILE="+tok.URI("context-token"))
			}
			g := startGateway(t, "Caddyfile", env...)
			// Its seal is pinned by tpp-request here, not by the harness's
			// verifier.
			g.fixture("the bank's seal in a SoftHSM2 token, whose certificate tpp-request pins")

			tppRequest := func() string {
				cmd := exec.Command(binary, "tpp-request", "--pki", productionPKIDir, "--bank-cert", certFile,
					"GET", "https://"+g.addr+"/v1/accounts", "-H", "TPP-Redirect-URI: https://tpp.example.no/cb")
				out, _ := cmd.CombinedOutput()
				return string(out)
			}
			if out := tppRequest(); !strings.Contains(out, "CONSENT_INVALID") || !strings.Contains(out, "signature: verified by") {
				t.Fatalf("tpp-request: %s", out)
			}
			g.waitForLog(t, `"msg":"trust: bank seal"`)
			if line := logLine(g.logs(), `"msg":"trust: bank seal"`); !strings.Contains(line, `"key":"pkcs11 token=obgw-`+tt.name+` object=bank-seal`) {
				t.Errorf("the report: %s", line)
			}
			if tt.bits == 0 {
				jwks := internalGet(t, "http://"+g.health+"/.well-known/jwks.json").body
				if !strings.Contains(string(jwks), `"alg":"ES256"`) || !strings.Contains(string(jwks), `"crv":"P-256"`) {
					t.Fatalf("the JWKS of a context key in the token: %s", jwks)
				}
			}
			config := string(internalGet(t, "http://"+g.admin+"/config/").body)
			if !strings.Contains(config, "pkcs11:token=") || strings.Contains(config, pin) {
				t.Fatalf("the configuration served: %s", config)
			}

			dir, err := tok.Dir()
			if err != nil {
				t.Fatal(err)
			}
			away := filepath.Join(hsm.Dir, "away-"+tt.name)
			if err := os.Rename(dir, away); err != nil {
				t.Fatal(err)
			}
			c := client(nil)
			for i := range 3 {
				// Each a second apart: the gateway reopens the token at
				// most once a second.
				time.Sleep(1100 * time.Millisecond)
				req := newRequest(t, g, http.MethodGet, "/v1/accounts", nil)
				if err := g.signer(t, "tpp").Sign(req, nil); err != nil {
					t.Fatal(err)
				}
				got := send(t, c, req)
				if got.status != 503 || got.err.code() != "SERVICE_UNAVAILABLE" || got.header.Get("Signature") != "" {
					t.Fatalf("answer %d while the token is away: %d %v %s", i, got.status, got.header, got.body)
				}
			}
			if got := readyz(t, g); got.status != 503 || !strings.Contains(string(got.body), `"bank_seal"`) {
				t.Fatalf("/readyz while the token is away: %d %s", got.status, got.body)
			}
			if err := os.Rename(away, dir); err != nil {
				t.Fatal(err)
			}
			time.Sleep(1100 * time.Millisecond)
			if out := tppRequest(); !strings.Contains(out, "signature: verified by") {
				t.Fatalf("tpp-request when the token is back: %s", out)
			}
			if got := readyz(t, g); got.status != 200 {
				t.Fatalf("/readyz when the token is back: %d %s", got.status, got.body)
			}
			if strings.Contains(g.logs(), pin) {
				t.Fatal("the log holds the PIN")
			}
		})
	}
}
