package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/obgw/obgw/backend"
	"github.com/obgw/obgw/backend/idp"
	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/testidp"
	"github.com/obgw/obgw/tppclient"
	"github.com/obgw/obgw/tppcontext"
)

// sandboxBank is a real backend over SQLite with the sandbox data set,
// served over TLS with the test PKI's server certificate, and a gateway
// stand-in issuing the context tokens obgw_verify issues for a verified
// TPP.
type sandboxBank struct {
	t      *testing.T
	url    string
	st     store.Store
	issuer *tppcontext.Issuer
	client *http.Client
}

func newSandboxBank(t *testing.T, rp *idp.RelyingParty) *sandboxBank {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "obgw.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := sandbox.Seed(ctx, st, time.Now()); err != nil {
		t.Fatal(err)
	}
	key := bytes.Repeat([]byte{7}, 32)
	iss, err := tppcontext.NewIssuer(key)
	if err != nil {
		t.Fatal(err)
	}
	ver, err := tppcontext.NewVerifier(key)
	if err != nil {
		t.Fatal(err)
	}
	srv := gatewayStandIn(t, backend.New(backend.Config{Store: st, Tokens: ver, Sandbox: true, IdP: rp}))
	return &sandboxBank{t: t, url: srv.URL, st: st, issuer: iss,
		client: &http.Client{Transport: tppclient.NewTLSTransport(gatewayRoots(pkiDir), nil)}}
}

// tppCall is a TPP's request as the gateway forwards it.
type tppCall struct {
	method, path, body string
	sid, psuID         string
}

func (b *sandboxBank) call(c tppCall) (int, map[string]any, string) {
	b.t.Helper()
	req, err := http.NewRequest(c.method, b.url+c.path, strings.NewReader(c.body))
	if err != nil {
		b.t.Fatal(err)
	}
	rid := uuid.NewString()
	req.Header.Set("X-Request-ID", rid)
	req.Header.Set("TPP-Redirect-URI", "https://tpp.example.no/cb?state=xyz")
	req.Header.Set("TPP-Session-ID", c.sid)
	if c.psuID != "" {
		req.Header.Set("PSU-ID", c.psuID)
	}
	if c.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	tok, err := b.issuer.Issue(tppcontext.Context{TPP: "PSDNO-FSA-987654321", TPPName: "Test TPP AS", Roles: []string{"PSP_AI", "PSP_PI"},
		RequestID: rid, Method: c.method, Path: req.URL.Path, PSUID: c.psuID, PSUPresent: true}, time.Now())
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set(tppcontext.Header, tok)
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			b.t.Fatalf("%s %s: %v: %s", c.method, c.path, err, raw)
		}
	}
	return resp.StatusCode, out, string(raw)
}

// scaRedirect starts a flow with c and returns its scaRedirect href as the
// TPP gets it (a path: /v1/sca/... or the sealed /v1/sca/s/...) and the
// answer.
func (b *sandboxBank) scaRedirect(c tppCall, wantStatus int) (string, map[string]any) {
	b.t.Helper()
	status, body, raw := b.call(c)
	links, _ := body["_links"].(map[string]any)
	l, _ := links["scaRedirect"].(map[string]any)
	href, _ := l["href"].(string)
	if status != wantStatus || href == "" {
		b.t.Fatalf("%s %s: %d %s, want %d with a scaRedirect", c.method, c.path, status, raw, wantStatus)
	}
	return href, body
}

const (
	kariBrukskonto = "NO2912031010010"
	kariSparekonto = "NO9812031010029"
	olaBrukskonto  = "NO1212031020016"
)

func consentFlow(sid string) tppCall {
	return tppCall{method: "POST", path: "/v1/bank-offered-consents", sid: sid}
}

// runSCA runs the sca command's function on args; the link is relative,
// taken against --gateway, as a TPP developer pastes a scaRedirect href.
func (b *sandboxBank) runSCA(link string, args ...string) (out, progress string, status int, err error) {
	b.t.Helper()
	var stdout, stderr bytes.Buffer
	fl := commandFlags(b.t, "sca", append([]string{link, "--gateway", b.url, "--pki", pkiDir}, args...)...)
	status, err = sca(fl, &stdout, &stderr)
	return stdout.String(), stderr.String(), status, err
}

// TestSCACommandCompletesFlows drives the sandbox's real SCA pages: a
// sealed link from a 401, a consent in the private and the corporate
// context with all, the first or named accounts, a payment; each ends at
// the redirect to the TPP, whose PSU-ID then reads what was consented.
func TestSCACommandCompletesFlows(t *testing.T) {
	b := newSandboxBank(t, nil)
	for _, tc := range []struct {
		name     string
		start    tppCall
		status   int
		args     []string
		wantOut  []string
		accounts []string // IBANs the consent must give, and no other of Kari's
	}{
		{"sealed link of a 401", tppCall{method: "GET", path: "/v1/accounts", sid: "s-sealed"}, 401,
			[]string{"--customer", sandbox.KariNumber},
			[]string{"context: PRIVATE", "tpp-session-id: s-sealed", "state: xyz"}, []string{kariBrukskonto, kariSparekonto}},
		{"consent, named account", consentFlow("s-named"), 201,
			[]string{"--customer", sandbox.KariNumber, "--accounts", kariSparekonto},
			[]string{"context: PRIVATE"}, []string{kariSparekonto}},
		{"consent, corporate, first account", consentFlow("s-corp"), 201,
			[]string{"--customer", sandbox.KariNumber, "--context", "corporate", "--accounts", "first"},
			[]string{"context: CORPORATE", "psu-corporate-id: "}, nil},
		{"consent, corporate by name", consentFlow("s-corp-name"), 201,
			[]string{"--customer", sandbox.KariNumber, "--context", "corporate:fjordfisk as"},
			[]string{"context: CORPORATE", "psu-corporate-id: "}, nil},
		{"payment", tppCall{method: "POST", path: "/v1/payments/domestic-norway-credit-transfers", sid: "s-pay",
			body: `{"instructedAmount":{"currency":"NOK","amount":"250.00"},"debtorAccount":{"iban":"` + kariBrukskonto +
				`"},"creditorAccount":{"iban":"` + olaBrukskonto + `"},"creditorName":"Ola Nordmann"}`}, 201,
			[]string{"--customer", sandbox.KariNumber},
			[]string{"context: PRIVATE", "tpp-session-id: s-pay"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			href, created := b.scaRedirect(tc.start, tc.status)
			out, progress, status, err := b.runSCA(href, tc.args...)
			if err != nil || status != 0 {
				t.Fatalf("exit %d, %v\n%s%s", status, err, progress, out)
			}
			if !strings.HasPrefix(out, "https://tpp.example.no/cb?") || !strings.Contains(out, "\npsu-id: ") {
				t.Fatalf("no success redirect to the TPP:\n%s", out)
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(out, "\n"+w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			psuID := strings.Fields(out[strings.Index(out, "\npsu-id: "):])[1]
			if tc.accounts != nil {
				s, _, raw := b.call(tppCall{method: "GET", path: "/v1/accounts", sid: tc.start.sid, psuID: psuID})
				if s != 200 {
					t.Fatalf("accounts under the consent: %d %s", s, raw)
				}
				for _, iban := range []string{kariBrukskonto, kariSparekonto} {
					want := false
					for _, a := range tc.accounts {
						want = want || a == iban
					}
					if strings.Contains(raw, iban) != want {
						t.Errorf("consent shows %s: %v, want %v: %s", iban, !want, want, raw)
					}
				}
			}
			if tc.start.body != "" {
				if !strings.Contains(progress, "NOK 250.00 to Ola Nordmann") {
					t.Errorf("progress does not show the payment:\n%s", progress)
				}
				id, _ := created["paymentId"].(string)
				if p, err := b.st.GetPayment(context.Background(), id); err != nil || p.Status != "ACTC" {
					t.Errorf("payment %s after SCA: %+v %v, want ACTC", id, p, err)
				}
			}
		})
	}
}

// TestSCACommandFailures: a cancelled flow ends at the failure redirect
// (exit status 1, its parameters printed); a wrong number, an unknown
// agreement and a missing customer number stop with an error naming the
// problem.
func TestSCACommandFailures(t *testing.T) {
	b := newSandboxBank(t, nil)
	for _, tc := range []struct {
		name    string
		args    []string
		wantOut string // on stdout: the failure redirect
		wantErr string
	}{
		{"cancel at the last step", []string{"--customer", sandbox.KariNumber, "--cancel"}, "code: CONSENT_INVALID", "CONSENT_INVALID"},
		{"cancel at once", []string{"--cancel"}, "message: The PSU cancelled the authorisation", "CONSENT_INVALID"},
		{"unknown customer number", []string{"--customer", "01019912345"}, "", "Unknown identification number"},
		{"unknown agreement", []string{"--customer", sandbox.KariNumber, "--context", "corporate:Bergen Bakeri AS"}, "", `no agreement "Bergen Bakeri AS"; offered: Private person`},
		{"account not offered", []string{"--customer", sandbox.KariNumber, "--accounts", olaBrukskonto}, "", "offers no account"},
		{"no customer number", nil, "", "--customer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			href, _ := b.scaRedirect(consentFlow("s-"+tc.name), 201)
			out, progress, status, err := b.runSCA(href, tc.args...)
			if status != 1 || err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("exit %d, error %v; want 1 and %q\n%s%s", status, err, tc.wantErr, progress, out)
			}
			if tc.wantOut == "" && out != "" || !strings.Contains(out, tc.wantOut) {
				t.Errorf("stdout %q, want %q", out, tc.wantOut)
			}
		})
	}
}

// TestSCACommandLoginPage: where the bank logs PSUs in at its identity
// provider, the command says it drives only the sandbox's customer-number
// page.
func TestSCACommandLoginPage(t *testing.T) {
	p, err := testidp.Start(testidp.Config{Users: testIDPUsers,
		Clients: []testidp.Client{{ID: "obgw", Secret: "s", RedirectURIs: []string{"https://localhost/v1/sca/callback"}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	rp, err := idp.New(idp.Config{Issuer: p.Issuer(), ClientID: "obgw", ClientSecret: "s"})
	if err != nil {
		t.Fatal(err)
	}
	b := newSandboxBank(t, rp)
	href, _ := b.scaRedirect(consentFlow("s-login"), 201)
	_, _, status, err := b.runSCA(href, "--customer", sandbox.KariNumber)
	if status != 1 || !errors.Is(err, errLoginPage) {
		t.Fatalf("exit %d, %v; want %v", status, err, errLoginPage)
	}
	// As the command line runs it, the advice is one plain sentence on
	// standard error, not a JSON log line (issue 33, 4).
	cmd := &cobra.Command{Use: "sca"}
	caddycmd.Commands()["sca"].CobraFunc(cmd)
	var stdout, stderr bytes.Buffer
	cmd.SetOut(&stdout)
	cmd.SetErr(&stderr)
	href, _ = b.scaRedirect(consentFlow("s-login-2"), 201)
	if err := cmd.ParseFlags([]string{href, "--gateway", b.url, "--pki", pkiDir, "--customer", sandbox.KariNumber}); err != nil {
		t.Fatal(err)
	}
	if err := cmd.RunE(cmd, cmd.Flags().Args()); !errors.Is(err, errLoginPage) {
		t.Fatalf("the command: %v", err)
	}
	if want := "obgw sca: " + errLoginPage.Error() + "\n"; !strings.HasSuffix(stderr.String(), want) {
		t.Fatalf("standard error %q, want it to end with %q", stderr.String(), want)
	}
}
