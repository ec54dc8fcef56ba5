package backend

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/tppcontext"
)

// TestOneSandboxPerTPP (issue 16): two TPPs of one sandbox deployment each
// get the fixed data set in a sandbox of their own at their first call,
// create the same customer number each, see and change nothing of the
// other's, and a reset ends the caller's sandbox only; an SCA in one TPP's
// flow identifies the customer of that TPP's sandbox. Both ways, on SQLite
// and PostgreSQL.
func TestOneSandboxPerTPP(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		const a, b = testTPP, "PSDNO-FSA-987654322"       // b's first call is below
		customers := func(tpp string) map[string]string { // number -> id
			t.Helper()
			status, body, _ := h.call(tppCall{tpp: tpp, method: "GET", path: "/v1/sandbox/customers"})
			if status != 200 {
				t.Fatalf("%s's customers: %d %v", tpp, status, body)
			}
			out := map[string]string{}
			for _, c := range body["customers"].([]any) {
				m := c.(map[string]any)
				out[m["customerNumber"].(string)] = m["customerId"].(string)
			}
			return out
		}
		ca, cb := customers(a), customers(b)
		if len(ca) != 4 || len(cb) != 4 || ca[sandbox.KariNumber] == "" || cb[sandbox.KariNumber] == "" || ca[sandbox.KariNumber] == cb[sandbox.KariNumber] {
			t.Fatalf("the data set in two sandboxes: %v and %v", ca, cb)
		}

		// The contract's example customer, once in each sandbox.
		const example = `{"customerNumber":"13039319955","name":"Test Testperson","type":"Private"}`
		for _, tpp := range []string{a, b} {
			if status, body, _ := h.call(tppCall{tpp: tpp, method: "POST", path: "/v1/sandbox/customers", body: example}); status != 201 {
				t.Fatalf("%s creates the example customer: %d %v", tpp, status, body)
			}
		}
		ca, cb = customers(a), customers(b)

		// Nothing of the other's, by id: read, change, delete.
		for _, x := range []struct{ tpp, other string }{{a, cb["13039319955"]}, {b, ca["13039319955"]}} {
			for _, m := range []string{"GET", "DELETE"} {
				if status, body, _ := h.call(tppCall{tpp: x.tpp, method: m, path: "/v1/sandbox/customers/" + x.other}); status != 404 {
					t.Fatalf("%s %s of the other sandbox's customer: %d %v", x.tpp, m, status, body)
				}
			}
			if status, body, _ := h.call(tppCall{tpp: x.tpp, method: "PUT", path: "/v1/sandbox/customers/" + x.other, body: example}); status != 404 {
				t.Fatalf("%s PUT of the other sandbox's customer: %d %v", x.tpp, status, body)
			}
		}
		accountOf := func(owner, number string) string {
			t.Helper()
			c, err := h.st.GetCustomerByNumber(context.Background(), owner, number)
			if err != nil {
				t.Fatal(err)
			}
			as, err := h.st.ListCustomerAccounts(context.Background(), c.ID)
			if err != nil || len(as) == 0 {
				t.Fatalf("%s's accounts: %v %v", number, as, err)
			}
			return as[0].ID
		}
		// b reads, changes, funds or books nothing on a's mock account.
		const mockAccount = `{"customerNumber":"15038540189","accountName":"x","bban":"12031010010","currency":"NOK","product":"x","cashAccountType":"CACC","creditLine":0}`
		aAccount := "/v1/sandbox/accounts/" + accountOf(a, sandbox.KariNumber)
		for _, c := range []tppCall{
			{tpp: b, method: "GET", path: aAccount},
			{tpp: b, method: "PUT", path: aAccount, body: mockAccount},
			{tpp: b, method: "PUT", path: aAccount + "/balances", body: `{"balances":[{"balanceType":"EXPECTED","balanceAmount":{"amount":1,"currency":"NOK"}}]}`},
			{tpp: b, method: "POST", path: aAccount + "/transactions", body: `{"transactions":[]}`},
		} {
			if status, body, _ := h.call(c); status != 404 {
				t.Fatalf("b %s %s: %d %v, want 404", c.method, c.path, status, body)
			}
		}

		// A payment in a's sandbox from Kari to Ola's IBAN (the same IBAN in
		// every sandbox) debits and credits a's accounts; b's Ola is
		// untouched.
		balance := func(owner, iban string) string {
			t.Helper()
			acc, err := h.st.GetAccountByNumber(context.Background(), owner, iban, "")
			if err != nil {
				t.Fatal(err)
			}
			bs, _ := h.st.ListBalances(context.Background(), acc.ID)
			for _, x := range bs {
				if x.Type == "closingBooked" {
					return fmt.Sprint(x.Amount)
				}
			}
			return ""
		}
		aOla, bOla, bKari := balance(a, olaIBAN), balance(b, olaIBAN), balance(b, kariIBAN)
		status, body, _ := h.call(tppCall{tpp: a, method: "POST", path: "/v1/payments/domestic-norway-credit-transfers", sid: "p1",
			body: paymentBody("150.00", kariIBAN, olaIBAN, "")})
		if status != 201 {
			t.Fatalf("a's payment: %d %v", status, body)
		}
		if q := h.authorise(scaLink(body), sandbox.KariNumber); q.Get("psu-id") == "" {
			t.Fatalf("a's payment not authorised: %v", q)
		}
		if status, body, _ := h.call(tppCall{tpp: a, method: "POST", path: "/v1/sandbox/payment-batch-runs"}); status != 200 || body["settled"].(float64) != 1 {
			t.Fatalf("a's batch run: %d %v", status, body)
		}
		if balance(a, olaIBAN) == aOla || balance(b, olaIBAN) != bOla || balance(b, kariIBAN) != bKari {
			t.Fatalf("after a's payment: a's Ola %s (was %s), b's Ola %s (was %s), b's Kari %s (was %s)",
				balance(a, olaIBAN), aOla, balance(b, olaIBAN), bOla, balance(b, kariIBAN), bKari)
		}

		// An SCA in a's flow: a's Kari, a's accounts.
		q := h.consent(a, "s1", sandbox.KariNumber, "", 1)
		status, body, _ = h.call(tppCall{tpp: a, method: "GET", path: "/v1/accounts", psuID: q.Get("psu-id")})
		if status != 200 {
			t.Fatalf("a's accounts: %d %v", status, body)
		}
		for _, acc := range body["accounts"].([]any) {
			id := acc.(map[string]any)["resourceId"].(string)
			got, err := h.st.GetAccount(context.Background(), id)
			if err != nil || got.Owner != a {
				t.Fatalf("account %s of a's consent: %+v, %v; want one of a's sandbox", id, got, err)
			}
		}

		// a resets: its own sandbox only.
		if status, body, _ := h.call(tppCall{tpp: a, method: "POST", path: "/v1/sandbox/initialize"}); status != 200 {
			t.Fatalf("a initializes: %d %v", status, body)
		}
		if got := customers(a); len(got) != 4 || got["13039319955"] != "" || got[sandbox.KariNumber] == ca[sandbox.KariNumber] {
			t.Fatalf("a after its reset: %v", got)
		}
		if got := customers(b); len(got) != 5 || got["13039319955"] != cb["13039319955"] || got[sandbox.KariNumber] != cb[sandbox.KariNumber] {
			t.Fatalf("b after a's reset: %v, want %v", got, cb)
		}
		if status, body, _ := h.call(tppCall{tpp: a, method: "GET", path: "/v1/accounts", psuID: q.Get("psu-id")}); status != 401 {
			t.Fatalf("a's PSU-ID after its reset: %d %v", status, body)
		}
	})
}

// TestSandboxResetsThrottled (issue 34, 5): one TPP resetting its sandbox
// 8 times at once gets 2 resets and six 429 ACCESS_EXCEEDED with
// Retry-After, counted on two instances together; another TPP resets
// meanwhile; 10 seconds later the first may reset once more.
func TestSandboxResetsThrottled(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		// A second backend instance on the same database.
		ver, _ := tppcontext.NewVerifier(bytes.Repeat([]byte{9}, 32))
		second := newTestServer(t, New(Config{Store: h.st, Tokens: ver, Sandbox: true, Now: h.clk.now}))
		defer second.Close()
		var mu sync.Mutex
		statuses := map[int]int{}
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := tppCall{method: "POST", path: "/v1/sandbox/initialize"}
				if i%2 == 1 {
					c.srv = second
				}
				status, b, hdr := h.call(c)
				if status == 429 && (errCode(b) != "ACCESS_EXCEEDED" || hdr.Get("Retry-After") != "20") {
					t.Errorf("a refused reset: %v %v", b, hdr)
				}
				mu.Lock()
				statuses[status]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		if statuses[200] != 2 || statuses[429] != 6 {
			t.Fatalf("8 resets at once: %v, want 2 × 200 and 6 × 429", statuses)
		}
		if status, b, _ := h.call(tppCall{tpp: "PSDNO-FSA-987654322", method: "POST", path: "/v1/sandbox/initialize"}); status != 200 {
			t.Fatalf("another TPP's reset: %d %v", status, b)
		}
		if status, _, _ := h.call(tppCall{method: "POST", path: "/v1/sandbox/initialize"}); status != 429 {
			t.Fatalf("a reset within 10 s: %d", status)
		}
		// Retry-After (20 s) after the last refusal: the reset is done.
		h.clk.add(2 * sandbox.Resets.Every)
		if status, b, _ := h.call(tppCall{method: "POST", path: "/v1/sandbox/initialize"}); status != 200 {
			t.Fatalf("a reset Retry-After later: %d %v", status, b)
		}
	})
}
