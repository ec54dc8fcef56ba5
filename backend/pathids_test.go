package backend

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/tppcontext"
)

// idLookups counts the store's look-ups by id, to show that an id that
// cannot be ours costs no query.
type idLookups struct {
	store.Store
	n atomic.Int64
}

func (s *idLookups) GetCustomer(ctx context.Context, id string) (*store.Customer, error) {
	s.n.Add(1)
	return s.Store.GetCustomer(ctx, id)
}
func (s *idLookups) GetAccount(ctx context.Context, id string) (*store.Account, error) {
	s.n.Add(1)
	return s.Store.GetAccount(ctx, id)
}
func (s *idLookups) GetSCAFlow(ctx context.Context, id string) (*store.SCAFlow, error) {
	s.n.Add(1)
	return s.Store.GetSCAFlow(ctx, id)
}
func (s *idLookups) GetConsent(ctx context.Context, id string) (*store.Consent, error) {
	s.n.Add(1)
	return s.Store.GetConsent(ctx, id)
}
func (s *idLookups) GetPayment(ctx context.Context, id string) (*store.Payment, error) {
	s.n.Add(1)
	return s.Store.GetPayment(ctx, id)
}
func (s *idLookups) GetBasket(ctx context.Context, id string) (*store.Basket, error) {
	s.n.Add(1)
	return s.Store.GetBasket(ctx, id)
}

// countingHarness serves h's store through idLookups.
func countingHarness(t *testing.T, kind string) (*harness, *idLookups) {
	h := newHarness(t, kind)
	counted := &idLookups{Store: h.st}
	ver, _ := tppcontext.NewVerifier(bytes.Repeat([]byte{9}, 32))
	h.srv.Close()
	h.srv = newTestServer(t, New(Config{Store: counted, Tokens: ver, Sandbox: true, Now: h.clk.now}))
	t.Cleanup(h.srv.Close)
	return h, counted
}

// TestMalformedPathIDsAreUnknown: NUL, control characters, invalid UTF-8
// and over-long ids get 404 RESOURCE_UNKNOWN on both stores without a
// store look-up (PostgreSQL answered 503 for NUL, and %FF failed the
// context token's path check with 401).
func TestMalformedPathIDsAreUnknown(t *testing.T) {
	for _, kind := range storeKinds() {
		t.Run(kind, func(t *testing.T) {
			h, counted := countingHarness(t, kind)
			for _, c := range []tppCall{
				{method: "GET", path: "/v1/bank-offered-consents/%00"},
				{method: "GET", path: "/v1/bank-offered-consents/enc!!%00x/status"},
				{method: "DELETE", path: "/v1/bank-offered-consents/%FF"},
				{method: "GET", path: "/v1/accounts/%FF/balances", psuID: "3f2504e0-4f89-41d3-9a0c-0305e82c3301"},
				{method: "GET", path: "/v1/accounts/a%0Ab/transactions"},
				{method: "GET", path: "/v1/card-accounts/%C2%85"},
				{method: "GET", path: "/v1/payments/sepa-credit-transfers/" + strings.Repeat("a", 129)},
				{method: "GET", path: "/v1/payments/sepa-credit-transfers/enc!!x/authorisations/%00"},
				{method: "GET", path: "/v1/signing-baskets/%7F"},
				{method: "GET", path: "/v1/sandbox/customers/%00"},
				{method: "GET", path: "/v1/accounts/" + strings.Repeat("a", 70) + "%2F" + strings.Repeat("a", 70) + "/balances"},
			} {
				status, body, _ := h.call(c)
				if status != http.StatusNotFound || errCode(body) != "RESOURCE_UNKNOWN" {
					t.Errorf("%s %s: %d %v, want 404 RESOURCE_UNKNOWN", c.method, c.path, status, body)
				}
			}
			if n := counted.n.Load(); n != 0 {
				t.Errorf("%d store look-ups for ids that cannot be ours, want none", n)
			}
			// A well-formed unknown id is looked up, and unknown.
			status, body, _ := h.call(tppCall{method: "GET", path: "/v1/bank-offered-consents/enc!!nope"})
			if status != http.StatusNotFound || counted.n.Load() == 0 {
				t.Errorf("well-formed unknown consent: %d %v after %d look-ups", status, body, counted.n.Load())
			}
		})
	}
}

// TestMalformedSCAPageIDsAreUnknown: the unauthenticated SCA page answers
// its plain 404 page for such ids, on both stores, without a look-up.
func TestMalformedSCAPageIDsAreUnknown(t *testing.T) {
	for _, kind := range storeKinds() {
		t.Run(kind, func(t *testing.T) {
			h, counted := countingHarness(t, kind)
			client := h.srv.Client()
			for _, path := range []string{"/v1/sca/%00", "/v1/sca/%FF", "/v1/sca/a%01b", "/v1/sca/" + strings.Repeat("x", 200)} {
				for _, method := range []string{"GET", "POST"} {
					req, _ := http.NewRequest(method, h.srv.URL+path, strings.NewReader("step=identify"))
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
					resp, err := client.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(b), "authorisation link is unknown") ||
						!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
						t.Errorf("%s %s: %d %s %q, want the plain 404 page", method, path, resp.StatusCode, resp.Header.Get("Content-Type"), b)
					}
				}
			}
			if n := counted.n.Load(); n != 0 {
				t.Errorf("%d store look-ups for ids that cannot be ours, want none", n)
			}
		})
	}
}
