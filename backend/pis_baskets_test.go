package backend

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/obgw/obgw/backend/pis"
	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/tppcontext"
)

// TestBasketCancelledReportsRJCT (issue 14, 5): a basket the TPP deleted
// reports RJCT (the description allows RCVD, ACTC, PATC, RJCT); its
// payments stay awaiting SCA and can be authorised on their own.
func TestBasketCancelledReportsRJCT(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		var ids []string
		for range 2 {
			_, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.InstantProduct, sid: "b", body: paymentBody("5.00", kariIBAN, olaIBAN, "")})
			ids = append(ids, b["paymentId"].(string))
		}
		_, b, _ := h.call(tppCall{method: "POST", path: "/v1/signing-baskets", sid: "b", psuID: basketPSU, psuPresent: true, body: `{"paymentIds":["` + strings.Join(ids, `","`) + `"]}`})
		self := "/v1/signing-baskets/" + b["basketId"].(string)
		if status, _, _ := h.call(tppCall{method: "DELETE", path: self}); status != 204 {
			t.Fatalf("delete: %d", status)
		}
		for _, path := range []string{self, self + "/status"} {
			if _, b, _ := h.call(tppCall{method: "GET", path: path}); b["transactionStatus"] != "RJCT" {
				t.Fatalf("GET %s after delete: %v", path, b)
			}
		}
		if status, b, _ := h.call(tppCall{method: "POST", path: self + "/authorisations"}); status != 409 || errCode(b) != "STATUS_INVALID" {
			t.Fatalf("authorising a deleted basket: %d %v", status, b)
		}
		for _, id := range ids {
			if p, _ := h.st.GetPayment(context.Background(), id); p.Status != pis.StatusReceived {
				t.Fatalf("payment %s of the deleted basket: %s, want RCVD", id, p.Status)
			}
		}
	})
}

// basketPSU is the PSU-ID the basket tests send: basket creation wants the
// PSU present and named.
const basketPSU = "3f0c5e1a-7b7d-4c43-9a1e-2b8e6f3d9c10"

// TestBasketCreationRequiresPSUHeaders (issue 14, 7): the description's
// header table requires PSU-ID, PSU-IP-Address and TPP-Session-ID for
// basket creation; each missing one is named.
func TestBasketCreationRequiresPSUHeaders(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		_, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.InstantProduct, sid: "b", body: paymentBody("5.00", kariIBAN, olaIBAN, "")})
		list := `{"paymentIds":["` + b["paymentId"].(string) + `"]}`
		for _, tc := range []struct {
			call tppCall
			path string
		}{
			{tppCall{sid: "b", psuPresent: true}, "PSU-ID"},
			{tppCall{sid: "b", psuID: basketPSU}, "PSU-IP-Address"},
			{tppCall{psuID: basketPSU, psuPresent: true}, "TPP-Session-ID"},
		} {
			c := tc.call
			c.method, c.path, c.body = "POST", "/v1/signing-baskets", list
			status, b, _ := h.call(c)
			msgs, _ := b["tppMessages"].([]any)
			if status != 400 || errCode(b) != "FORMAT_ERROR" || len(msgs) == 0 || msgs[0].(map[string]any)["path"] != tc.path {
				t.Errorf("without %s: %d %v", tc.path, status, b)
			}
		}
	})
}

// TestBasketAuthorisesAllOrNothing (issue 34, 4): a basket authorises and
// executes none of its payments unless it can authorise all of them: an
// instant payment from Kari's account beside one from Ola's (which Kari
// may not pay from), or beside one Kari's account has no funds for, ends
// with the failure redirect, every payment RJCT, no money moved and the
// basket RJCT. Before, the instant payment was executed (ACSC) while the
// PSU and the TPP were told the basket failed.
func TestBasketAuthorisesAllOrNothing(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		for _, tc := range []struct {
			name   string
			second string // the second payment's body, with the first an instant payment of NOK 5 from Kari
			code   string
			funds  string // the instant payments' fundsAvailable
		}{
			{"a payment from another PSU's account", paymentBody("5.00", olaIBAN, kariIBAN, ""), "RESOURCE_UNKNOWN", ""},
			{"an instant payment without funds", paymentBody("99999999.00", kariIBAN, olaIBAN, ""), "PAYMENT_FAILED", "false"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := h.balance(kariIBAN)
				ids, self, _ := basketOf(t, h, pis.InstantProduct, paymentBody("5.00", kariIBAN, olaIBAN, ""), tc.second)
				status, b, _ := h.call(tppCall{method: "POST", path: self + "/authorisations"})
				if status != 201 {
					t.Fatalf("basket authorisation: %d %v", status, b)
				}
				q := h.authorise(scaLink(b), sandbox.KariNumber)
				if q.Get("code") != tc.code {
					t.Fatalf("the redirect: %v, want the failure %s", q, tc.code)
				}
				for _, id := range ids {
					p, err := h.st.GetPayment(context.Background(), id)
					if err != nil || p.Status != pis.StatusRejected {
						t.Fatalf("payment %s of the failed basket: %v %v, want RJCT", id, p, err)
					}
				}
				first, _ := h.st.GetPayment(context.Background(), ids[0])
				if first.FundsAvailable != tc.funds {
					t.Errorf("the instant payment's fundsAvailable %q, want %q", first.FundsAvailable, tc.funds)
				}
				if after := h.balance(kariIBAN); after != before {
					t.Fatalf("Kari's balance moved from %s to %s", before, after)
				}
				if _, b, _ := h.call(tppCall{method: "GET", path: self + "/status"}); b["transactionStatus"] != "RJCT" {
					t.Fatalf("the basket: %v", b)
				}
			})
		}
	})
}

// richBalances is a store whose balances, read outside a transaction, show
// plenty of funds: the funds a basket's check saw are gone by the time a
// payment executes (which reads them in its transaction).
type richBalances struct{ store.Store }

func (r richBalances) ListBalances(ctx context.Context, accountID string) ([]store.Balance, error) {
	bs, err := r.Store.ListBalances(ctx, accountID)
	for i := range bs {
		bs[i].Amount += 1_000_000_000_00
	}
	return bs, err
}

// TestBasketPartlyExecutedSaysSo (issue 34, 4): when an instant payment's
// funds go between the basket's check and its execution, that payment
// alone is rejected (fundsAvailable false), the other is executed, and
// the redirect says the payments were authorised but one could not be
// executed; the basket reports RJCT, its worst case.
func TestBasketPartlyExecutedSaysSo(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ver, _ := tppcontext.NewVerifier(bytes.Repeat([]byte{9}, 32))
		rich := newTestServer(t, New(Config{Store: richBalances{h.st}, Tokens: ver, Sandbox: true, Now: h.clk.now}))
		defer rich.Close()
		main := h.srv
		h.srv = rich
		defer func() { h.srv = main }()
		ids, self, _ := basketOf(t, h, pis.InstantProduct, paymentBody("5.00", kariIBAN, olaIBAN, ""), paymentBody("99999999.00", kariIBAN, olaIBAN, ""))
		_, b, _ := h.call(tppCall{method: "POST", path: self + "/authorisations"})
		q := h.authorise(scaLink(b), sandbox.KariNumber)
		if q.Get("code") != "PAYMENT_FAILED" || !strings.Contains(q.Get("message"), "were authorised, but an instant payment could not be executed") {
			t.Fatalf("the redirect: %v", q)
		}
		want := []struct{ status, funds string }{{pis.StatusSettled, "true"}, {pis.StatusRejected, "false"}}
		for i, id := range ids {
			p, err := h.st.GetPayment(context.Background(), id)
			if err != nil || p.Status != want[i].status || p.FundsAvailable != want[i].funds {
				t.Fatalf("payment %d: %+v %v, want %s with fundsAvailable %s", i+1, p, err, want[i].status, want[i].funds)
			}
		}
		if _, b, _ := h.call(tppCall{method: "GET", path: self + "/status"}); b["transactionStatus"] != "RJCT" {
			t.Fatalf("the basket: %v", b)
		}
	})
}

// basketOf makes a basket of product's payments with bodies (none: two NOK
// 5 payments from Kari to Ola) and returns the payments' ids, the
// basket's path and its creation answer (with its scaRedirect).
func basketOf(t *testing.T, h *harness, product string, bodies ...string) (ids []string, self string, created map[string]any) {
	t.Helper()
	if len(bodies) == 0 {
		bodies = []string{paymentBody("5.00", kariIBAN, olaIBAN, ""), paymentBody("5.00", kariIBAN, olaIBAN, "")}
	}
	for _, body := range bodies {
		status, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/" + product, sid: "b", body: body})
		if status != 201 {
			t.Fatalf("payment: %d %v", status, b)
		}
		ids = append(ids, b["paymentId"].(string))
	}
	status, b, _ := h.call(tppCall{method: "POST", path: "/v1/signing-baskets", sid: "b", psuID: basketPSU, psuPresent: true,
		body: `{"paymentIds":["` + strings.Join(ids, `","`) + `"]}`})
	if status != 201 || scaLink(b) == "" {
		t.Fatalf("basket: %d %v", status, b)
	}
	return ids, "/v1/signing-baskets/" + b["basketId"].(string), b
}

// TestDeletedBasketStaysDeleted (issue 29, 1): a basket deleted after its
// scaRedirect was handed out cannot be authorised through that link: the
// link ends the flow with the failure redirect (409 STATUS_INVALID), and
// the payments stay RCVD, to be authorised on their own; the basket stays
// RJCT.
func TestDeletedBasketStaysDeleted(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ids, self, created := basketOf(t, h, pis.InstantProduct)
		link := scaLink(created)
		if status, _, _ := h.call(tppCall{method: "DELETE", path: self}); status != 204 {
			t.Fatalf("delete: %d", status)
		}
		status, loc := opens(t, h.srv, link)
		if status != http.StatusSeeOther || loc.Query().Get("code") != "STATUS_INVALID" || !strings.Contains(loc.Query().Get("message"), "withdrew the basket") {
			t.Fatalf("the deleted basket's link: %d %v", status, loc)
		}
		for _, id := range ids {
			if p, _ := h.st.GetPayment(context.Background(), id); p.Status != pis.StatusReceived {
				t.Fatalf("payment %s of the deleted basket: %s, want RCVD", id, p.Status)
			}
		}
		if _, b, _ := h.call(tppCall{method: "GET", path: self + "/status"}); b["transactionStatus"] != "RJCT" {
			t.Fatalf("the basket: %v", b)
		}
	})
}

// TestPartlyAuthorisedBasketCompletes (issue 29, 4): a basket one of
// whose payments was authorised on its own (PATC) can still be
// authorised: through its link, and by a new authorisation; the other
// payment is authorised, not rejected, and the basket is ACTC.
func TestPartlyAuthorisedBasketCompletes(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ids, self, created := basketOf(t, h, "domestic-norway-credit-transfers")
		link := scaLink(created)
		status, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/domestic-norway-credit-transfers/" + ids[0] + "/authorisations", sid: "b"})
		if status != 201 {
			t.Fatalf("the first payment's authorisation: %d %v", status, b)
		}
		if q := h.authorise(scaLink(b), sandbox.KariNumber); q.Get("code") != "" {
			t.Fatalf("the first payment's SCA: %v", q)
		}
		if _, b, _ := h.call(tppCall{method: "GET", path: self + "/status"}); b["transactionStatus"] != "PATC" {
			t.Fatalf("the basket after one payment: %v", b)
		}
		if status, b, _ := h.call(tppCall{method: "POST", path: self + "/authorisations", sid: "b"}); status != 201 || scaLink(b) == "" {
			t.Fatalf("a new authorisation of the PATC basket: %d %v", status, b)
		}
		if q := h.authorise(link, sandbox.KariNumber); q.Get("code") != "" {
			t.Fatalf("the PATC basket's SCA: %v", q)
		}
		for _, id := range ids {
			if p, _ := h.st.GetPayment(context.Background(), id); p.Status != pis.StatusAccepted {
				t.Fatalf("payment %s: %s, want ACTC", id, p.Status)
			}
		}
		if _, b, _ := h.call(tppCall{method: "GET", path: self + "/status"}); b["transactionStatus"] != "ACTC" {
			t.Fatalf("the basket: %v", b)
		}
	})
}

// TestBasketCreationAnswerAsDescribed (issue 29, 12): the creation answer
// has basketId, transactionStatus and _links, as the description lists;
// a read of the basket lists its payments as well.
func TestBasketCreationAnswerAsDescribed(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		_, self, b := basketOf(t, h, pis.InstantProduct)
		if len(b) != 3 || b["basketId"] == nil || b["transactionStatus"] != "RCVD" || b["_links"] == nil {
			t.Fatalf("creation: %v", b)
		}
		if _, b, _ := h.call(tppCall{method: "GET", path: self}); len(b["payments"].([]any)) != 2 {
			t.Fatalf("read: %v", b)
		}
	})
}

// balancesDown is a store whose balances cannot be read outside a
// transaction: the basket's funds check fails.
type balancesDown struct{ store.Store }

func (balancesDown) ListBalances(context.Context, string) ([]store.Balance, error) {
	return nil, store.ErrUnavailable
}

// TestBasketStoreFailureLeavesPaymentsAwaiting: when the store fails while
// a basket is checked, the PSU is told to try again, and its payments stay
// awaiting SCA (not rejected), so that trying again can succeed.
func TestBasketStoreFailureLeavesPaymentsAwaiting(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ver, _ := tppcontext.NewVerifier(bytes.Repeat([]byte{9}, 32))
		down := newTestServer(t, New(Config{Store: balancesDown{h.st}, Tokens: ver, Sandbox: true, Now: h.clk.now}))
		defer down.Close()
		main := h.srv
		h.srv = down
		defer func() { h.srv = main }()
		ids, _, created := basketOf(t, h, pis.InstantProduct)
		link := scaLink(created)
		if q := h.authorise(link, sandbox.KariNumber); q.Get("code") != "SERVICE_UNAVAILABLE" {
			t.Fatalf("the redirect: %v", q)
		}
		for _, id := range ids {
			if p, _ := h.st.GetPayment(context.Background(), id); p.Status != pis.StatusReceived {
				t.Fatalf("payment %s after a store failure: %s, want RCVD", id, p.Status)
			}
		}
	})
}
