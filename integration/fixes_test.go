package integration

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/obgw/obgw/tppcontext"
)

// TestAcceptFix: fixes whose default-since lies in the future (as
// configured for /v1/fixes in echo.Caddyfile) are off without the header
// and on with it; the fixes in effect are echoed and reach the context
// token; the rewrite survives gzip from an encode handler in front.
func TestAcceptFix(t *testing.T) {
	g, rc := startEcho(t)
	verifier, _ := tppcontext.NewVerifier(contextKey)
	call := func(t *testing.T, fixHeader string, gz bool) (http.Header, string, *tppcontext.Context) {
		req := newRequest(t, g, http.MethodGet, "/v1/fixes", nil)
		if fixHeader != "" {
			req.Header.Set("X-Accept-Fix", fixHeader)
		}
		if gz {
			req.Header.Set("Accept-Encoding", "gzip")
		}
		if err := signer(t, "tpp").Sign(req, nil); err != nil {
			t.Fatal(err)
		}
		c := client(nil)
		transport(c).DisableCompression = true // see the raw encoding
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var rd io.Reader = resp.Body
		if gz {
			if resp.Header.Get("Content-Encoding") != "gzip" {
				t.Fatalf("not gzip-encoded: %v", resp.Header)
			}
			zr, err := gzip.NewReader(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			rd = zr
		}
		b, _ := io.ReadAll(rd)
		if resp.StatusCode != 200 || !json.Valid(b) {
			t.Fatalf("%d %s", resp.StatusCode, b)
		}
		up, _ := rc.get(req.Header.Get("X-Request-ID"))
		ctx, err := verifier.Verify(up.header.Get("X-Obgw-Context"), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return resp.Header, string(b), ctx
	}

	t.Run("legacy without the header", func(t *testing.T) {
		h, body, ctx := call(t, "", false)
		if !strings.Contains(body, `"amount":18000.50`) || !strings.Contains(body, `"name":"Brukskonto for husholdning og faste"`) {
			t.Fatalf("legacy body %s", body)
		}
		// cash-account-type-iso's default date has passed: ISO codes stay.
		if !strings.Contains(body, `"cashAccountType":"CACC"`) || h.Get("X-Accept-Fix") != "cash-account-type-iso" {
			t.Fatalf("x-accept-fix %q body %s", h.Get("X-Accept-Fix"), body)
		}
		if strings.Join(ctx.Fixes, ",") != "cash-account-type-iso" {
			t.Fatalf("token fixes %v", ctx.Fixes)
		}
	})
	t.Run("opted in to one", func(t *testing.T) {
		h, body, _ := call(t, "Amount-As-String, unknown-fix", false)
		if !strings.Contains(body, `"amount":"18000.50"`) || !strings.Contains(body, `"name":"Brukskonto for husholdning og faste"`) {
			t.Fatalf("body %s", body)
		}
		if h.Get("X-Accept-Fix") != "amount-as-string,cash-account-type-iso" {
			t.Fatalf("x-accept-fix %q", h.Get("X-Accept-Fix"))
		}
	})
	t.Run("opted in to all: the newest shape, untouched", func(t *testing.T) {
		_, body, _ := call(t, "amount-as-string, longer-names", false)
		if body != fixesBody {
			t.Fatalf("body changed: %s", body)
		}
	})
	t.Run("gzip with encode in front", func(t *testing.T) {
		_, body, _ := call(t, "", true)
		if !strings.Contains(body, `"amount":18000.50`) {
			t.Fatalf("gzip legacy body %s", body)
		}
	})
}

// TestAcceptFixShippedDefaults: with the shipped policy every fix's
// default date has passed, so all four are echoed and amounts are strings.
func TestAcceptFixShippedDefaults(t *testing.T) {
	g := startGateway(t, "Caddyfile", databaseEnv(t, "sqlite")...)
	req := newRequest(t, g, http.MethodGet, "/v1/accounts", nil)
	if err := signer(t, "tpp").Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	got := send(t, client(nil), req)
	want := "amount-as-string,cardaccount-switch-originalamount-and-transactionamount,cash-account-type-iso,longer-names"
	if got.header.Get("X-Accept-Fix") != want {
		t.Fatalf("x-accept-fix %q", got.header.Get("X-Accept-Fix"))
	}
}
